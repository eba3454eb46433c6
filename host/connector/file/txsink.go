package file

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// txSink is the file sink of a job with checkpoints. It writes a new file
// per checkpoint interval:
//
//	.part-SSSSS-NNNNNN.inprogress   being written
//	.part-SSSSS-NNNNNN.pending      sealed by a checkpoint, not yet committed
//	part-SSSSS-NNNNNN               committed: covered by a completed checkpoint
//
// where S is the subtask and N a sequence number. Readers take only the
// committed files (the others start with a dot), so they see every record
// exactly once whatever failures and restores happened.
type txSink struct {
	dir     string
	subtask int
	seq     int
	f       *os.File
	w       *bufio.Writer
	name    string // the in-progress file's committed name
	staged  []staged
	closed  bool
}

// staged is a sealed file and the checkpoint that sealed it.
type staged struct {
	id   int64
	name string
}

// OpenTransactionalSink opens the checkpoint-aware file sink of a subtask.
// A subtask that does not restore (restored is false) starts afresh: it
// removes every file it left in the directory before, committed or not,
// as the plain sink truncates its part file.
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
	s := &txSink{dir: cfg.Path, subtask: split.Subtask}
	if !restored {
		if err := s.removeOwn(func(string) bool { return true }); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// prefix is the start of this subtask's committed names.
func (s *txSink) prefix() string { return fmt.Sprintf("part-%05d-", s.subtask) }

// own lists this subtask's files by committed name, with their paths.
func (s *txSink) own() (map[string][]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	out := map[string][]string{}
	for _, e := range entries {
		n := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(e.Name(), "."), ".inprogress"), ".pending")
		if strings.HasPrefix(n, s.prefix()) {
			out[n] = append(out[n], filepath.Join(s.dir, e.Name()))
			if seq, err := strconv.Atoi(strings.TrimPrefix(n, s.prefix())); err == nil {
				s.seq = max(s.seq, seq+1)
			}
		}
	}
	return out, nil
}

// removeOwn removes this subtask's files whose committed name drop says.
func (s *txSink) removeOwn(drop func(name string) bool) error {
	files, err := s.own()
	if err != nil {
		return err
	}
	for name, paths := range files {
		if !drop(name) {
			continue
		}
		for _, p := range paths {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("file sink: %w", err)
			}
		}
	}
	return nil
}

func (s *txSink) pending(name string) string { return filepath.Join(s.dir, "."+name+".pending") }

// Write implements connector.Sink.
func (s *txSink) Write(b *record.Batch) error {
	if s.closed {
		return connector.ErrClosed
	}
	if s.f == nil {
		s.name = fmt.Sprintf("%s%06d", s.prefix(), s.seq)
		s.seq++
		f, err := os.Create(filepath.Join(s.dir, "."+s.name+".inprogress"))
		if err != nil {
			return fmt.Errorf("file sink: %w", err)
		}
		s.f, s.w = f, bufio.NewWriterSize(f, DefaultBufferSize)
	}
	for i := range b.Records {
		s.w.Write(b.Records[i].Value)
		if err := s.w.WriteByte('\n'); err != nil {
			return fmt.Errorf("file sink: write %s: %w", s.name, err)
		}
	}
	return nil
}

// Flush implements connector.Sink.
func (s *txSink) Flush() error {
	if s.w == nil {
		return nil
	}
	return s.w.Flush()
}

// txState is the sink's state at a checkpoint: the sealed files not yet
// committed, and the sequence number of the next file.
type txState struct {
	Dir     string   `json:"dir"`
	Subtask int      `json:"subtask"`
	Pending []string `json:"pending,omitempty"`
	Next    int      `json:"next"`
}

// PreCommit implements connector.Transactional: the in-progress file is
// synced and becomes pending.
func (s *txSink) PreCommit(id int64) ([]byte, error) {
	if s.f != nil {
		err := errors.Join(s.w.Flush(), s.f.Sync(), s.f.Close())
		if err == nil {
			err = os.Rename(s.f.Name(), s.pending(s.name))
		}
		if err != nil {
			return nil, fmt.Errorf("file sink: sealing %s: %w", s.name, err)
		}
		s.staged = append(s.staged, staged{id, s.name})
		s.f, s.w = nil, nil
	}
	st := txState{Dir: s.dir, Subtask: s.subtask, Next: s.seq}
	for _, p := range s.staged {
		st.Pending = append(st.Pending, p.name)
	}
	return json.Marshal(st)
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
	if errors.Is(err, fs.ErrNotExist) {
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
		old := &txSink{dir: s.dir, subtask: st.Subtask}
		if err := old.removeOwn(func(name string) bool {
			seq, err := strconv.Atoi(strings.TrimPrefix(name, old.prefix()))
			return err == nil && seq >= st.Next
		}); err != nil {
			return err
		}
	}
	committed := map[string]bool{}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("file sink: %w", err)
	}
	for _, e := range entries {
		committed[e.Name()] = true
	}
	// Everything of this subtask not committed by now was written after
	// the checkpoint.
	return s.removeOwn(func(name string) bool { return !committed[name] })
}

// Close implements connector.Sink: an in-progress file is left behind, to
// be discarded by the next restore.
func (s *txSink) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	if s.f == nil {
		return nil
	}
	return errors.Join(s.w.Flush(), s.f.Close())
}
