// Package forward is the file-based forwarding protocol: a reader's write handed to the
// writer as requests/<id>.json in the home folder, claimed by one writer term by a rename,
// applied exactly once (its id recorded in the same save, Doc.Applied) and answered in
// replies/<id>.json. It holds the protocol's files, names and encodings; the policy that
// needs the writer term (when to serve, which claims are abandoned, applying a request) is
// package host's, which imports this one. See README.md.
package forward

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"baton/store"
	"baton/workflow"
)

// The files, all in the home folder, all written atomically (temp, fsync, rename, 0600):
//
//	requests/<id>.json              a request: its id, the requester window, the op
//	requests/<id>.taken-<claim>     the same file, claimed by a writer term: its instance
//	                                and process tag (<instance>.<pid>.<start>.<boot>)
//	requests/<id>.withdrawn         the same file, withdrawn by its requester
//	replies/<id>.json               the answer: the requester, the writer's pid, the outcome
//
// The id is 128 random bits. Every move of a request is a rename(2) of one name, which is
// atomic: of two processes renaming requests/<id>.json away, exactly one succeeds. So a
// request is either claimed by one writer (Claim) or withdrawn by its requester
// (Withdraw), never both.

const (
	RequestsDir = "requests"
	RepliesDir  = "replies"
	// MaxFile caps a request or reply file read from disk: a control line
	// (host.MaxRequestLine, 1 MiB) and the envelope.
	MaxFile = 1<<20 + 16<<10
	// Timeout bounds how long a requester waits for a writer to take its request.
	Timeout = 10 * time.Second
)

// Decoder decodes untrusted JSON strictly into v: one value, valid UTF-8, every key once,
// no unknown key. The core gives its own (host's strict decoding of control lines), so a
// request file is held to what a control line is.
type Decoder func(data []byte, v any) error

// RequestPath is requests/<id><suffix> in home.
func RequestPath(home, id, suffix string) string {
	return filepath.Join(home, RequestsDir, id+suffix)
}

// ReplyPath is replies/<id>.json in home.
func ReplyPath(home, id string) string { return filepath.Join(home, RepliesDir, id+".json") }

// NewID returns a fresh request id: 128 random bits in lower-case hex.
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("request id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// ValidID reports whether id is a request id as NewID makes them.
func ValidID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Name is a parsed name in requests/.
type Name struct {
	ID     string
	Suffix string // ".json", ".withdrawn" or ".taken-<claim>"
	Claim  string // of a taken name: <instance>.<process tag>
}

// ParseName parses a name in requests/; ok is false for anything else (a temp file).
func ParseName(name string) (n Name, ok bool) {
	id, rest, ok := strings.Cut(name, ".")
	if !ok || !ValidID(id) {
		return Name{}, false
	}
	n = Name{ID: id, Suffix: "." + rest}
	switch claim, taken := strings.CutPrefix(rest, "taken-"); {
	case taken && claim != "":
		n.Claim = claim
	case rest != "json" && rest != "withdrawn":
		return Name{}, false
	}
	return n, true
}

// ClaimOf names a writer term in the requests it claims: its instance and process tag.
func ClaimOf(instance, tag string) string { return instance + "." + tag }

// SplitClaim returns the instance and process tag a claim names.
func SplitClaim(claim string) (instance, tag string) {
	instance, tag, _ = strings.Cut(claim, ".")
	return instance, tag
}

// ErrTooLarge is ReadCapped's error for a file over MaxFile bytes.
var ErrTooLarge = errors.New("file too large")

// ReadCapped reads a forwarding file: never through a symlink, at most MaxFile bytes
// (ErrTooLarge beyond).
func ReadCapped(path string) ([]byte, error) {
	f, err := store.OpenInHome(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err == nil && len(data) > MaxFile {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, MaxFile)
	}
	return data, err
}

// decodeObject decodes data, exactly one JSON object, into v with decode.
func decodeObject(decode Decoder, data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '{' {
		return errors.New("not a JSON object")
	}
	return decode(data, v)
}

// Request is the content of requests/<id>.json; R is the core's request (host.Request).
type Request[R any] struct {
	ID        string      `json:"id"`
	Requester store.Owner `json:"requester"`
	Request   R           `json:"request"`
}

// DecodeRequest decodes the request file of id, which is untrusted input: one JSON
// object, no unknown fields, its own id, a requester. The request returned is never nil
// (the requester is kept when known); the error says what is wrong. Whether its op may be
// applied is the core's to check.
func DecodeRequest[R any](id string, data []byte, decode Decoder) (*Request[R], error) {
	var fr Request[R]
	if len(data) > MaxFile {
		return &fr, fmt.Errorf("%w (over %d bytes)", ErrTooLarge, MaxFile)
	}
	if err := decodeObject(decode, data, &fr); err != nil {
		return &fr, fmt.Errorf("request file is not a valid request: %v", err)
	}
	switch {
	case fr.ID != id:
		return &fr, fmt.Errorf("request file %s carries id %q", id, fr.ID)
	case fr.Requester.Instance == "" || fr.Requester.PID <= 0:
		return &fr, errors.New("request file names no requester window")
	}
	return &fr, nil
}

// ---- the requester

// Submit writes request r as requests/<r.ID>.json, for a writer to take. A request over
// MaxFile bytes is refused (workflow.ErrInvalid).
func Submit[R any](home string, r *Request[R]) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(b) > MaxFile {
		return fmt.Errorf("%w: request of %d bytes is too large to forward", workflow.ErrInvalid, len(b))
	}
	// Atomic, not durable: a machine crash ends the requester too, and a request torn by
	// one is answered invalid, never applied (its applying save is the durable record).
	if err := store.WriteFileAtomicVolatile(RequestPath(home, r.ID, ".json"), b); err != nil {
		return fmt.Errorf("forward to the writer: %w", err)
	}
	return nil
}

// Withdraw takes back request id unless a writer took it first: nil if it did (the
// request is then never applied), else the rename's error (a writer took it and its
// answer is on its way).
func Withdraw(home, id string) error {
	withdrawn := RequestPath(home, id, ".withdrawn")
	if err := os.Rename(RequestPath(home, id, ".json"), withdrawn); err != nil {
		return err
	}
	_ = os.Remove(withdrawn)
	return nil
}

// Answered removes the files of request id once its reply is read: the reply (its
// requester was its only reader) and the claim, if its writer died before removing it
// (else the next writer would answer again, to nobody). The answer is in workflows.json.
func Answered(home, id string) {
	_ = os.Remove(ReplyPath(home, id))
	claims, _ := filepath.Glob(RequestPath(home, id, ".taken-*"))
	for _, p := range claims {
		_ = os.Remove(p)
	}
}

// ---- the writer

// Pending lists the request files in requests/ (new, withdrawn and claimed ones).
func Pending(home string) ([]Name, error) {
	ents, err := os.ReadDir(filepath.Join(home, RequestsDir))
	if err != nil {
		return nil, err
	}
	var out []Name
	for _, e := range ents {
		if n, ok := ParseName(e.Name()); ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// Claim renames request file n to the taken name of claim and returns that path; ok is
// false when it is gone (withdrawn, or another writer took it). A file that claim took
// already is returned as it is.
func Claim(home string, n Name, claim string) (path string, ok bool) {
	mine := RequestPath(home, n.ID, ".taken-"+claim)
	if n.Claim != claim && os.Rename(RequestPath(home, n.ID, n.Suffix), mine) != nil {
		return "", false
	}
	return mine, true
}

// Sweep removes the forwarding files proven abandoned: temp files whose creator is gone
// (creatorGone, by its process tag), and replies and withdrawn requests whose requester
// is dead (alive answers false; a file that names no window names the zero Owner).
func Sweep(home string, creatorGone func(tag string) bool, alive func(requester store.Owner) bool) {
	for _, dir := range []string{RequestsDir, RepliesDir} {
		store.CleanTemps(filepath.Join(home, dir), creatorGone)
	}
	for _, p := range ListDir(filepath.Join(home, RepliesDir)) {
		if n, ok := strings.CutSuffix(filepath.Base(p), ".json"); ok && ValidID(n) && requesterGone(p, alive) {
			_ = os.Remove(p)
		}
	}
	for _, p := range ListDir(filepath.Join(home, RequestsDir)) {
		if n, ok := ParseName(filepath.Base(p)); ok && n.Suffix == ".withdrawn" && requesterGone(p, alive) {
			_ = os.Remove(p)
		}
	}
}

// requesterGone reports whether the window a request or reply file names as its
// requester is dead. A file that does not name one (it does not decode) is nobody's.
func requesterGone(path string, alive func(store.Owner) bool) bool {
	data, err := ReadCapped(path)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		return false
	}
	var f struct {
		Requester store.Owner `json:"requester"`
	}
	_ = json.Unmarshal(data, &f)
	return !alive(f.Requester)
}

// ListDir lists the paths of the entries of dir (none if it cannot be read).
func ListDir(dir string) []string {
	ents, _ := os.ReadDir(dir)
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}
