// Package control is Baton's headless control channel, protocol v1: JSON lines on a
// process's stdin and stdout, one request per line in, one reply per request and one line
// per event out (host/README.md, "The control channel (v1)"). It is the transport only:
// a line is decoded by host.ParseRequest, answered by host.Call (the same operations as
// the window's, forwarded to the writer when asked) and written as host.Reply builds it.
package control

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"baton/host"
)

// Control serves the headless JSON-lines channel of one window: requests in, one reply per
// request and one line per event out. Nothing else is written to out.
type Control struct {
	core *host.Core
	mu   sync.Mutex // serialises lines on out
	out  io.Writer
}

// NewControl returns a control channel for core writing to out.
func NewControl(core *host.Core, out io.Writer) *Control { return &Control{core: core, out: out} }

func (c *Control) writeLine(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"id": nil, "ok": false, "code": "internal", "error": err.Error()})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.out.Write(append(b, '\n'))
}

// Forward writes every event of sub until sub is closed. Run it in its own goroutine.
func (c *Control) Forward(sub *host.Sub) {
	for e := range sub.C {
		c.writeLine(e)
	}
}

// Serve reads requests from in until it ends or a shutdown op arrives; it returns io.EOF
// or nil (shutdown). It does not close the window.
func (c *Control) Serve(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r, host.MaxRequestLine)
		if len(bytes.TrimSpace(line)) > 0 || errors.Is(err, errLineTooLong) {
			if errors.Is(err, errLineTooLong) {
				c.writeLine(host.InvalidReply(nil, fmt.Sprintf("request line longer than %d bytes", host.MaxRequestLine)))
			} else if c.handleLine(line) {
				return nil
			}
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return io.EOF
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine returns one line without its newline; a line over max is skipped whole and
// reported as errLineTooLong.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

// handleLine answers one request and reports whether it was a shutdown.
func (c *Control) handleLine(line []byte) bool {
	req, err := host.ParseRequest(line)
	if err != nil {
		var id json.RawMessage
		if req != nil {
			id = req.ID
		}
		c.writeLine(host.InvalidReply(id, err.Error()))
		return false
	}
	reply, err := host.Call(context.Background(), c.core, req)
	c.writeLine(host.Reply(req.ID, reply, err))
	return err == nil && req.Op == "shutdown"
}

// RunHeadless is a window without a screen: it opens home, serves the control channel on
// in/out until in ends, a shutdown op, or a signal on stop, then closes gracefully
// (running runs are cancelled and recorded, the lock released). Logs go to stderr.
func RunHeadless(home string, opts host.Options, in io.Reader, out io.Writer, stop <-chan os.Signal) error {
	w, err := host.Open(home, opts)
	if err != nil {
		return err
	}
	c := NewControl(w, out)
	sub := w.Subscribe()
	fwd := make(chan struct{})
	go func() { c.Forward(sub); close(fwd) }()
	if err := w.Start(); err != nil {
		w.Close()
		<-fwd
		return err
	}
	done := make(chan struct{})
	go func() { _ = c.Serve(in); close(done) }()
	select {
	case <-done:
	case <-stop:
	}
	err = w.Close()
	<-fwd
	return err
}
