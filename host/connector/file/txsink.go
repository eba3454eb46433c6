package file

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// txSink is the file sink of a job with checkpoints. It writes a new file
// per checkpoint interval (and, with buckets, per bucket written in it):
//
//	.part-SSSSS-NNNNNN.inprogress   being written
//	.part-SSSSS-NNNNNN.pending      sealed by a checkpoint, not yet committed
//	part-SSSSS-NNNNNN               committed: covered by a completed checkpoint
//
// where S is the subtask and N a sequence number, shared by the subtask's
// buckets. Readers take only the committed files (the others start with a
// dot), so they see every record exactly once whatever failures and
// restores happened.
//
// A file is named in state and in staged by its path relative to dir in
// its committed form, such as dt=2024-01-01/hm=10:07/part-00001-000042 (or
// part-00001-000042 without buckets).
type txSink struct {
	dir      string
	subtask  int
	bucketed bool
	seq      int
	buckets  bucketer
	open     *lru[*inProgress]
	cur      *inProgress // the part of the last bucket written
	curName  string      // its bucket
	closed   []string    // in-progress files closed to bound the open ones
	staged   []staged
	isClosed bool
}

// inProgress is an open in-progress file.
type inProgress struct {
	rel string
	f   *os.File
	w   *bufio.Writer
}

// staged is a sealed file and the checkpoint that sealed it.
type staged struct {
	id   int64
	name string
}

// OpenTransactionalSink opens the checkpoint-aware file sink of a subtask.
// A subtask that does not restore (restored is false) starts afresh: it
// removes every file it left in the directory (and, with buckets, in the
// directories below it) before, committed or not, as the plain sink
// truncates its part file.
func OpenTransactionalSink(cfg SinkConfig, split connector.SplitInfo, restored bool) (connector.Transactional, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := split.Validate(); err != nil {
		return nil, fmt.Errorf("file sink %s: %w", cfg.Path, err)
	}
	if err := os.MkdirAll(cfg.Path, 0o755); err != nil {
		return nil, fmt.Errorf("file sink: create directory %s: %w", cfg.Path, err)
	}
	s := &txSink{
		dir: cfg.Path, subtask: split.Subtask, bucketed: cfg.Buckets.Format != "",
		buckets: bucketer{layout: cfg.Buckets.Format}, open: newLRU[*inProgress](cfg.Buckets.maxOpen()),
	}
	if !restored {
		if err := s.removeOwn(func(string, bool) bool { return true }); err != nil {
			return nil, err
		}
		return s, nil
	}
	// Number new files past every file of the subtask, even before
	// Recover runs, so that none overwrites a committed one.
	if _, err := s.own(s.subtask); err != nil {
		return nil, err
	}
	return s, nil
}

// prefix is the start of a subtask's committed names.
func prefix(subtask int) string { return fmt.Sprintf("part-%05d-", subtask) }

// seqOf returns the sequence number of a file of subtask, by its committed
// path, or false if it is not one.
func seqOf(subtask int, rel string) (int, bool) {
	base := filepath.Base(rel)
	if !strings.HasPrefix(base, prefix(subtask)) {
		return 0, false
	}
	seq, err := strconv.Atoi(strings.TrimPrefix(base, prefix(subtask)))
	return seq, err == nil
}

// ownFile is a file of the subtask found in the directory.
type ownFile struct {
	path      string
	committed bool
}

// own lists the subtask's files by committed path relative to the sink's
// directory; with buckets it looks in every directory below it. It raises
// s.seq past the sequence numbers it finds.
func (s *txSink) own(subtask int) (map[string][]ownFile, error) {
	out := map[string][]ownFile{}
	visit := func(path string, name string) {
		n := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(name, "."), ".inprogress"), ".pending")
		seq, ok := seqOf(subtask, n)
		if !ok {
			return
		}
		relDir, _ := filepath.Rel(s.dir, filepath.Dir(path))
		rel := filepath.Join(relDir, n)
		out[rel] = append(out[rel], ownFile{path: path, committed: n == name})
		if subtask == s.subtask {
			s.seq = max(s.seq, seq+1)
		}
	}
	if !s.bucketed {
		entries, err := os.ReadDir(s.dir)
		if err != nil {
			return nil, fmt.Errorf("file sink: %w", err)
		}
		for _, e := range entries {
			visit(filepath.Join(s.dir, e.Name()), e.Name())
		}
		return out, nil
	}
	err := filepath.WalkDir(s.dir, func(path string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			visit(path, d.Name())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	return out, nil
}

// removeOwn removes this subtask's files whose committed path, and whether
// it is committed, drop says.
func (s *txSink) removeOwn(drop func(rel string, committed bool) bool) error {
	return s.removeOf(s.subtask, drop)
}

// removeOf removes the files of subtask that drop says.
func (s *txSink) removeOf(subtask int, drop func(rel string, committed bool) bool) error {
	files, err := s.own(subtask)
	if err != nil {
		return err
	}
	for rel, found := range files {
		committed := slices.ContainsFunc(found, func(f ownFile) bool { return f.committed })
		if !drop(rel, committed) {
			continue
		}
		for _, f := range found {
			if err := os.Remove(f.path); err != nil && !errors.Is(err, iofs.ErrNotExist) {
				return fmt.Errorf("file sink: %w", err)
			}
		}
	}
	return nil
}

// hidden is the path of the uncommitted form of rel with suffix.
func (s *txSink) hidden(rel, suffix string) string {
	return filepath.Join(s.dir, filepath.Dir(rel), "."+filepath.Base(rel)+suffix)
}

func (s *txSink) pending(rel string) string { return s.hidden(rel, ".pending") }

// Write implements connector.Sink.
func (s *txSink) Write(b *record.Batch) error {
	if s.isClosed {
		return connector.ErrClosed
	}
	for i := range b.Records {
		r := &b.Records[i]
		p, err := s.part(r.Timestamp)
		if err != nil {
			return err
		}
		p.w.Write(r.Value)
		if err := p.w.WriteByte('\n'); err != nil {
			return fmt.Errorf("file sink: write %s: %w", p.rel, err)
		}
	}
	return nil
}

// part returns the in-progress file of the bucket of a record with
// timestamp ts, opening it, and closing the least recently written one if
// too many are open, as needed.
func (s *txSink) part(ts int64) (*inProgress, error) {
	bucket, err := s.buckets.bucket(ts)
	if err != nil {
		return nil, fmt.Errorf("file sink %s: %w", s.dir, err)
	}
	if s.cur != nil && bucket == s.curName {
		return s.cur, nil
	}
	p, ok := s.open.get(bucket)
	if !ok {
		if s.open.full() {
			if err := s.evict(); err != nil {
				return nil, err
			}
		}
		if p, err = s.create(bucket); err != nil {
			return nil, err
		}
		s.open.add(bucket, p)
	}
	s.cur, s.curName = p, bucket
	return p, nil
}

// create opens a new in-progress file in bucket.
func (s *txSink) create(bucket string) (*inProgress, error) {
	rel := filepath.Join(bucket, fmt.Sprintf("%s%06d", prefix(s.subtask), s.seq))
	s.seq++
	if err := os.MkdirAll(filepath.Join(s.dir, bucket), 0o755); err != nil {
		return nil, fmt.Errorf("file sink: create bucket: %w", err)
	}
	f, err := os.Create(s.hidden(rel, ".inprogress"))
	if err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	return &inProgress{rel: rel, f: f, w: bufio.NewWriterSize(f, DefaultBufferSize)}, nil
}

// evict closes the in-progress file of the bucket written least recently;
// the next checkpoint seals it with the open ones, so it is synced now.
func (s *txSink) evict() error {
	_, p := s.open.oldest()
	if p == s.cur {
		s.cur = nil
	}
	if err := errors.Join(p.w.Flush(), p.f.Sync(), p.f.Close()); err != nil {
		return fmt.Errorf("file sink: closing %s: %w", p.rel, err)
	}
	s.closed = append(s.closed, p.rel)
	return nil
}

// Flush implements connector.Sink.
func (s *txSink) Flush() error {
	for _, e := range s.open.open {
		if err := e.val.w.Flush(); err != nil {
			return fmt.Errorf("file sink: write %s: %w", e.val.rel, err)
		}
	}
	return nil
}

// txState is the sink's state at a checkpoint: the sealed files not yet
// committed, and the sequence number of the next file.
type txState struct {
	Dir     string   `json:"dir"`
	Subtask int      `json:"subtask"`
	Pending []string `json:"pending,omitempty"`
	Next    int      `json:"next"`
}

// PreCommit implements connector.Transactional: the in-progress files,
// open or closed, are synced and become pending.
func (s *txSink) PreCommit(id int64) ([]byte, error) {
	buckets := slices.Sorted(maps.Keys(s.open.open))
	for _, b := range buckets {
		p := s.open.open[b].val
		if err := errors.Join(p.w.Flush(), p.f.Sync(), p.f.Close()); err != nil {
			return nil, fmt.Errorf("file sink: sealing %s: %w", p.rel, err)
		}
		s.closed = append(s.closed, p.rel)
		delete(s.open.open, b)
	}
	s.cur = nil
	for _, rel := range s.closed {
		if err := s.seal(rel); err != nil {
			return nil, err
		}
		s.staged = append(s.staged, staged{id, rel})
	}
	s.closed = s.closed[:0]
	st := txState{Dir: s.dir, Subtask: s.subtask, Next: s.seq}
	for _, p := range s.staged {
		st.Pending = append(st.Pending, p.name)
	}
	return json.Marshal(st)
}

// seal makes the closed in-progress file rel pending.
func (s *txSink) seal(rel string) error {
	if err := os.Rename(s.hidden(rel, ".inprogress"), s.pending(rel)); err != nil {
		return fmt.Errorf("file sink: sealing %s: %w", rel, err)
	}
	return nil
}

// Commit implements connector.Transactional.
func (s *txSink) Commit(id int64) error {
	keep := s.staged[:0]
	for _, st := range s.staged {
		if st.id > id {
			keep = append(keep, st)
			continue
		}
		if err := s.commit(st.name); err != nil {
			return err
		}
	}
	s.staged = keep
	return nil
}

// commit renames a pending file to its committed name; committing twice is
// harmless.
func (s *txSink) commit(name string) error {
	err := os.Rename(s.pending(name), filepath.Join(s.dir, name))
	if errors.Is(err, iofs.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(s.dir, name)); serr == nil {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("file sink: committing %s: %w", name, err)
	}
	return nil
}

// Recover implements connector.Transactional.
func (s *txSink) Recover(states [][]byte) error {
	for _, b := range states {
		var st txState
		if err := json.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("file sink: restored state: %w", err)
		}
		if filepath.Clean(st.Dir) != filepath.Clean(s.dir) {
			// A job resumed into another directory: what the old one
			// holds stays there, untouched.
			continue
		}
		for _, name := range st.Pending {
			if err := s.commit(name); err != nil {
				return err
			}
		}
		// The subtask's files numbered from st.Next on were written after
		// the checkpoint.
		if err := s.removeOf(st.Subtask, func(rel string, _ bool) bool {
			seq, ok := seqOf(st.Subtask, rel)
			return ok && seq >= st.Next
		}); err != nil {
			return err
		}
	}
	// Everything of this subtask not committed by now was written after
	// the checkpoint.
	return s.removeOwn(func(_ string, committed bool) bool { return !committed })
}

// Close implements connector.Sink: the in-progress files are left behind,
// to be discarded by the next restore.
func (s *txSink) Close() error {
	if s.isClosed {
		return connector.ErrClosed
	}
	s.isClosed = true
	var err error
	for _, e := range s.open.open {
		err = errors.Join(err, e.val.w.Flush(), e.val.f.Close())
	}
	return err
}
