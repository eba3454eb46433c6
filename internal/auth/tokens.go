package auth

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// User is one user of a token file.
type User struct {
	Name string
	Role Role
}

// entry is one line of a token file: a user and the SHA-256 of its token.
type entry struct {
	User
	hash [sha256.Size]byte
}

// Tokens are the users of a token file. A Tokens is immutable and safe for
// concurrent use.
type Tokens struct {
	entries []entry
}

// hashPrefix starts the third field of a line, naming the hash.
const hashPrefix = "sha256:"

// tokenPrefix starts every token NewToken makes, so that a secret scanner,
// or a person, can tell one when it leaks into a log or a repository.
const tokenPrefix = "floe_"

// maxName is the longest user name.
const maxName = 64

// Parse reads a token file: one user per line, "NAME ROLE sha256:HEX",
// fields separated by spaces or tabs; blank lines and lines starting with
// "#" are ignored. Names are unique, roles are viewer, operator or admin.
// An error names the line.
func Parse(r io.Reader) (*Tokens, error) {
	t := &Tokens{}
	names := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if first, dup := names[e.Name]; dup {
			return nil, fmt.Errorf("line %d: user %q is also on line %d; a name has one token", n, e.Name, first)
		}
		for _, o := range t.entries {
			if o.hash == e.hash {
				return nil, fmt.Errorf("line %d: user %q has the same token as %q", n, e.Name, o.Name)
			}
		}
		names[e.Name] = n
		t.entries = append(t.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// parseLine parses one line that is not blank or a comment.
func parseLine(line string) (entry, error) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return entry{}, fmt.Errorf("want NAME ROLE sha256:HEX, got %d fields", len(f))
	}
	if err := CheckName(f[0]); err != nil {
		return entry{}, err
	}
	role, err := ParseRole(f[1])
	if err != nil {
		return entry{}, fmt.Errorf("user %q: %w", f[0], err)
	}
	hexHash, ok := strings.CutPrefix(f[2], hashPrefix)
	var e entry
	if !ok || hex.DecodedLen(len(hexHash)) != len(e.hash) {
		return entry{}, fmt.Errorf("user %q: want the token's hash as sha256: and 64 hex digits, got %q", f[0], f[2])
	}
	if _, err := hex.Decode(e.hash[:], []byte(hexHash)); err != nil {
		return entry{}, fmt.Errorf("user %q: the token's hash %q: %v", f[0], f[2], err)
	}
	e.User = User{Name: f[0], Role: role}
	return e, nil
}

// CheckName reports whether name can name a user: 1 to 64 letters,
// digits, '.', '_', '@' or '-'.
func CheckName(name string) error {
	ok := name != "" && len(name) <= maxName
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._@-", c)) {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("user name %q: want 1 to %d letters, digits, '.', '_', '@' or '-'", name, maxName)
	}
	return nil
}

// Load reads the token file at path.
func Load(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("token file %s: %w", path, err)
	}
	return t, nil
}

// Len returns the number of users.
func (t *Tokens) Len() int { return len(t.entries) }

// Authenticate returns the user whose token is token. It hashes token and
// compares the hash with every user's in constant time, so how long it
// takes tells nothing of which hash came close.
func (t *Tokens) Authenticate(token string) (User, bool) {
	if token == "" {
		return User{}, false
	}
	h := sha256.Sum256([]byte(token))
	var found User
	ok := false
	for _, e := range t.entries {
		if subtle.ConstantTimeCompare(h[:], e.hash[:]) == 1 {
			found, ok = e.User, true
		}
	}
	return found, ok
}

// user returns the user called name.
func (t *Tokens) user(name string) (User, bool) {
	for _, e := range t.entries {
		if e.Name == name {
			return e.User, true
		}
	}
	return User{}, false
}

// NewToken returns a new token: "floe_" and 256 bits from rand in
// unpadded base64url.
func NewToken(rand io.Reader) (string, error) {
	var b [32]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return "", fmt.Errorf("reading random bits for a token: %w", err)
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Line returns the line of a token file for user u with token, without a
// newline.
func Line(u User, token string) string {
	h := sha256.Sum256([]byte(token))
	return u.Name + " " + u.Role.String() + " " + hashPrefix + hex.EncodeToString(h[:])
}

// fileHeader starts a token file that Append creates.
const fileHeader = "# Floe REST API users: NAME ROLE sha256:HEX (the SHA-256 of the user's token).\n" +
	"# Add users with `floe token create NAME --role viewer|operator|admin --file FILE`.\n"

// Append makes a token for user u from rand and adds u with it to the
// token file at path, creating the file, readable and writable by its
// owner alone, if it does not exist. It returns the token, which is
// nowhere else: the file holds only its hash. It refuses a file that does
// not parse and a name the file already has.
func Append(path string, u User, rand io.Reader) (string, error) {
	if err := CheckName(u.Name); err != nil {
		return "", err
	}
	if _, ok := userRoles[u.Role.String()]; !ok {
		return "", fmt.Errorf("user %q: role %v: want viewer, operator or admin", u.Name, u.Role)
	}
	prefix, err := appendPrefix(path, u.Name)
	if err != nil {
		return "", err
	}
	token, err := NewToken(rand)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", err
	}
	_, err = io.WriteString(f, prefix+Line(u, token)+"\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	return token, nil
}

// appendPrefix checks the token file at path before a user called name is
// appended, and returns what goes before the user's line: the header for a
// new file, a newline for one whose last line has none.
func appendPrefix(path, name string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileHeader, nil
	}
	if err != nil {
		return "", err
	}
	t, err := Parse(strings.NewReader(string(data)))
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	if _, ok := t.user(name); ok {
		return "", fmt.Errorf("token file %s already has a user %q: remove its line first to give it a new token", path, name)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return "\n", nil
	}
	return "", nil
}
