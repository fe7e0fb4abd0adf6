package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// AuditName is the append-only audit log in the home folder.
const AuditName = "audit.log"

// AuditMaxSize is the size at which the audit log is rotated to audit.log.1.
const AuditMaxSize = 4 << 20

// Entry is one line of the audit log. Kind names what happened (takeover, reap, reclaim,
// overrun, skipped, queued, catch_up, cancel, shutdown); Data holds its details.
type Entry struct {
	Time time.Time      `json:"time"`
	Kind string         `json:"kind"`
	PID  int            `json:"pid"`
	Data map[string]any `json:"data,omitempty"`
}

// Audit appends entries to the audit log. Only the writer appends. Safe for concurrent use.
type Audit struct {
	path string
	mu   sync.Mutex // serialises appends and rotation
}

// NewAudit returns the audit log of a home folder.
func NewAudit(dir string) *Audit { return &Audit{path: filepath.Join(dir, AuditName)} }

// Append writes one entry and fsyncs it. Errors are returned, never fatal.
func (a *Audit) Append(kind string, data map[string]any) error {
	e := Entry{Time: time.Now().UTC(), Kind: kind, PID: os.Getpid(), Data: data}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if fi, err := os.Stat(a.path); err == nil && fi.Size()+int64(len(line)) > AuditMaxSize {
		_ = os.Rename(a.path, a.path+".1")
	}
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return f.Sync()
}

// Read returns the entries of the audit log (the rotated file first), oldest first, at most
// the last max entries. A torn last line is skipped.
func (a *Audit) Read(max int) ([]Entry, error) {
	var out []Entry
	for _, p := range []string{a.path + ".1", a.path} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var e Entry
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				out = append(out, e)
			}
		}
	}
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out, nil
}
