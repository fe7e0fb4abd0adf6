package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"baton/store"
	"baton/workflow"
)

// MaxRequestLine caps one request line of the control channel (host/control); a
// forwarded request file may be a little longer (maxForwardFile).
const MaxRequestLine = 1 << 20

// Request is one control-channel request line. Op names the operation; the other fields
// belong to some ops.
type Request struct {
	ID        json.RawMessage `json:"id"`
	Op        string          `json:"op"`
	Workflow  json.RawMessage `json:"workflow,omitempty"` // object (add/update) or name
	Name      string          `json:"name,omitempty"`
	Task      string          `json:"task,omitempty"`
	Run       string          `json:"run,omitempty"`
	Schedule  json.RawMessage `json:"schedule,omitempty"`
	Set       json.RawMessage `json:"set,omitempty"`       // update_schedule's new fields
	Max       int             `json:"max,omitempty"`       // audit: newest entries
	Status    string          `json:"status,omitempty"`    // history filter
	Before    uint64          `json:"before,omitempty"`    // history page: the previous page's next
	Limit     int             `json:"limit,omitempty"`     // history page size
	Retention json.RawMessage `json:"retention,omitempty"` // set_retention: an object, or null for the defaults
	// Forward asks a reader to hand a write op to the writer instead of refusing it.
	Forward bool `json:"forward,omitempty"`
}

// Call answers one request in this process, as the control channel would (reply without
// "id" and "ok"). The command line uses it. A write op with Forward set is forwarded to
// the writer when this window is a reader (see forward.go): the reply is the writer's plus
// "forwarded_to" (its pid; numbers as json.Number), a refusal is a *ForwardedError, and a
// request no writer took within ForwardTimeout (or before ctx ended) is withdrawn and
// refused with workflow.ErrConflict.
func Call(ctx context.Context, w *Core, req *Request) (map[string]any, error) {
	return dispatch(ctx, w, req)
}

// ParseRequest decodes one request line strictly (strict.go): one JSON object, valid
// UTF-8, every key once, known keys spelled exactly (unknown keys are ignored). It returns
// an error naming what is wrong; the request returned is never nil, and with an error it
// carries the line's "id" when that is unambiguous (lineID), so the refusal can echo it.
func ParseRequest(line []byte) (*Request, error) {
	req, err := parseRequest(line)
	if err != nil {
		req.ID = lineID(line)
	}
	return req, err
}

func parseRequest(line []byte) (*Request, error) {
	req := &Request{}
	v, err := checkValue(line)
	if err != nil {
		return req, fmt.Errorf("request is %w", err)
	}
	var members map[string]jsontext.Value
	if v.Kind() != '{' || jsonv2.Unmarshal(v, &members) != nil {
		return req, errors.New("request is not a JSON object")
	}
	if err := checkKeyCase(members, reflect.TypeFor[Request]()); err != nil {
		return req, fmt.Errorf("request: %w", err)
	}
	if err := jsonv2.Unmarshal(v, req, lenientKeys); err != nil {
		return req, fmt.Errorf("request is not valid: %v", err)
	}
	if req.Op == "" {
		return req, errors.New("request has no \"op\"")
	}
	return req, nil
}

// dispatch answers req. A write with Forward set goes to the writer while this window
// does not write; without Forward a reader refuses it (read_only).
func dispatch(ctx context.Context, w *Core, req *Request) (map[string]any, error) {
	// A window that cannot write its home (a read-only file system) cannot forward either:
	// refused below, saying why.
	if req.Forward && forwardable[req.Op] && w.currentTerm() == nil && w.readOnly == "" {
		if unsafe := w.unsafeHome(); unsafe != nil { // no window writes an unsafe home
			return nil, &ReadOnlyError{Role: w.Role(), Problem: unsafe.Error()}
		}
		if w.etcd != nil { // requests reach only a writer that shares this local folder
			if why := w.etcd.cannotForward(w.Self()); why != "" {
				return nil, &ReadOnlyError{Role: w.Role(), Problem: why}
			}
		}
		return w.forward(ctx, req)
	}
	in := w.Intents()
	switch req.Op {
	case "request_write":
		e, err := w.RequestWrite(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", workflow.ErrConflict, err)
		}
		return map[string]any{"role": RoleWriter, "epoch": e}, nil
	case "status":
		s := w.Status()
		return map[string]any{"role": s.Role, "pid": s.PID, "instance": s.Instance, "epoch": s.Epoch,
			"generation": s.Generation, "writer_pid": s.WriterPID, "writer_machine": s.WriterMachine, "home": s.Home,
			"problem": s.Problem, "warning": w.Warning()}, nil
	case "snapshot":
		d := w.Snapshot()
		wp := w.writerPID()
		return map[string]any{"generation": d.Generation, "epoch": d.Epoch, "writer_pid": wp,
			"workflows": maskSecrets(d.Workflows), "runs": d.Runs, "schedules": d.Schedules}, nil
	case "add_workflow", "update_workflow":
		def, err := decodeWorkflow(req.Workflow)
		if err != nil {
			return nil, err
		}
		var g uint64
		if req.Op == "add_workflow" {
			g, err = in.AddWorkflow(ctx, def)
		} else {
			cur := w.Snapshot().Workflow(def.Name)
			keepMaskedSecrets(&def, cur)
			keepRetention(&def, cur, req.Workflow)
			g, err = in.UpdateWorkflow(ctx, def)
		}
		return writeReply(g, nil, nil), err
	case "rename_workflow":
		var from string
		if json.Unmarshal(req.Workflow, &from) != nil || from == "" || req.Name == "" {
			return nil, fmt.Errorf("%w: rename_workflow needs \"workflow\": the old name and \"name\": the new one", workflow.ErrInvalid)
		}
		g, err := in.RenameWorkflow(ctx, from, req.Name)
		return writeReply(g, nil, nil), err
	case "set_retention": // "workflow": name, or none for the home's default and size cap
		return setRetentionOp(ctx, in, nameOf(req), req.Retention)
	case "delete_workflow":
		name := nameOf(req)
		if name == "" {
			return nil, fmt.Errorf("%w: delete_workflow needs \"workflow\": name", workflow.ErrInvalid)
		}
		g, err := in.DeleteWorkflow(ctx, name)
		return writeReply(g, nil, nil), err
	case "start_run":
		name := nameOf(req)
		if name == "" {
			return nil, fmt.Errorf("%w: start_run needs \"workflow\": name", workflow.ErrInvalid)
		}
		run, g, err := in.StartRun(ctx, name, req.Task)
		return writeReply(g, &run, nil), err
	case "cancel_run":
		if req.Run == "" {
			return nil, fmt.Errorf("%w: cancel_run needs \"run\": id", workflow.ErrInvalid)
		}
		g, err := in.CancelRun(ctx, req.Run)
		return writeReply(g, nil, nil), err
	case "audit":
		es, err := in.Audit(req.Max)
		if es == nil {
			es = []store.Entry{}
		}
		return map[string]any{"entries": es}, err
	case "add_schedule":
		s, err := decodeSchedule(req.Schedule)
		if err != nil {
			return nil, err
		}
		out, g, err := in.AddSchedule(ctx, s)
		return writeReply(g, nil, &out), err
	case "update_schedule":
		id, e, err := decodeScheduleEdit(req)
		if err != nil {
			return nil, err
		}
		g, err := in.EditSchedule(ctx, id, e)
		return writeReply(g, nil, nil), err
	case "delete_schedule", "pause_schedule", "resume_schedule":
		id := scheduleID(req)
		if id == "" {
			return nil, fmt.Errorf("%w: %s needs \"schedule\": id", workflow.ErrInvalid, req.Op)
		}
		var g uint64
		var err error
		switch req.Op {
		case "delete_schedule":
			g, err = in.DeleteSchedule(ctx, id)
		default:
			g, err = in.PauseSchedule(ctx, id, req.Op == "pause_schedule")
		}
		return writeReply(g, nil, nil), err
	case "history":
		q := store.HistoryQuery{Workflow: nameOf(req), Status: req.Status, Before: req.Before, Limit: req.Limit}
		p, err := in.History(q)
		if p.Runs == nil {
			p.Runs = []store.Run{}
		}
		return map[string]any{"runs": p.Runs, "next": p.Next}, err
	case "shutdown":
		return map[string]any{}, nil
	}
	return nil, fmt.Errorf("%w: unknown op %q", workflow.ErrInvalid, req.Op)
}

// writeReply is the reply to a write that saved generation g, naming the run it started
// (start_run) and the schedule it added (add_schedule), if any. It is the one builder of
// a write's reply: the control channel answers with it, and forward.Recording records it
// in the save that applies a forwarded request, so a requester gets the same reply from
// the writer that applies its request and from a later one that finds it applied.
func writeReply(g uint64, run *store.Run, sch *store.Schedule) map[string]any {
	reply := map[string]any{"generation": g}
	if run != nil {
		reply["run"], reply["status"] = run.ID, run.Status
	}
	if sch != nil {
		reply["schedule"] = sch.ID
		if !sch.NextDue.IsZero() { // a paused schedule has none
			reply["next_due"] = sch.NextDue
		}
	}
	return reply
}

func nameOf(req *Request) string {
	if req.Name != "" {
		return req.Name
	}
	var s string
	if json.Unmarshal(req.Workflow, &s) == nil {
		return s
	}
	return ""
}

func decodeWorkflow(raw json.RawMessage) (store.Workflow, error) {
	var def store.Workflow
	if len(raw) == 0 {
		return def, fmt.Errorf("%w: missing \"workflow\" object", workflow.ErrInvalid)
	}
	if err := decodeObject(raw, &def); err != nil {
		return def, fmt.Errorf("%w: workflow: %v", workflow.ErrInvalid, err)
	}
	return def, nil
}

func decodeSchedule(raw json.RawMessage) (store.Schedule, error) {
	var s store.Schedule
	if len(raw) == 0 || raw[0] != '{' {
		return s, fmt.Errorf("%w: missing \"schedule\" object", workflow.ErrInvalid)
	}
	var in scheduleInput
	if err := decodeObject(raw, &in); err != nil {
		return s, fmt.Errorf("%w: schedule: %v", workflow.ErrInvalid, err)
	}
	return in.toSchedule(), nil
}

// scheduleInput is what add_schedule and update_schedule accept: the definition, never
// the state (lock, last due, waiting occurrences).
type scheduleInput struct {
	ID            string         `json:"id"`
	Workflow      string         `json:"workflow"`
	Every         store.Duration `json:"every"`
	Cron          string         `json:"cron"`
	TZ            string         `json:"tz"`
	Paused        bool           `json:"paused"`
	Overlap       string         `json:"overlap"`
	MaxRuntime    store.Duration `json:"max_runtime"`
	OnOverrun     string         `json:"on_overrun"`
	CatchUp       string         `json:"catch_up"`
	CatchUpWindow store.Duration `json:"catch_up_window"`
	Watermark     *string        `json:"watermark"`
}

func (in scheduleInput) toSchedule() store.Schedule {
	return store.Schedule{ID: in.ID, Workflow: in.Workflow, Every: in.Every, Cron: in.Cron, TZ: in.TZ,
		Paused: in.Paused, Overlap: in.Overlap, MaxRuntime: in.MaxRuntime, OnOverrun: in.OnOverrun,
		CatchUp: in.CatchUp, CatchUpWindow: in.CatchUpWindow, Watermark: in.Watermark}
}

// decodeScheduleEdit reads update_schedule: "schedule": id with the fields to change in
// "set", or "schedule": an object with its "id" and the fields to change. Only the fields
// named change (a null names nothing); an unknown field is refused.
func decodeScheduleEdit(req *Request) (string, workflow.ScheduleEdit, error) {
	var e workflow.ScheduleEdit
	id, raw := scheduleID(req), req.Set
	if id == "" {
		raw = req.Schedule
	}
	if len(raw) == 0 || raw[0] != '{' {
		return "", e, fmt.Errorf("%w: update_schedule needs \"schedule\": id and \"set\": the fields to change", workflow.ErrInvalid)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return "", e, fmt.Errorf("%w: schedule: %v", workflow.ErrInvalid, err)
	}
	if v, ok := fields["id"]; ok && id == "" {
		_ = json.Unmarshal(v, &id)
	}
	if id == "" {
		return "", e, fmt.Errorf("%w: update_schedule needs the schedule's \"id\"", workflow.ErrInvalid)
	}
	targets := map[string]any{"workflow": &e.Workflow, "every": &e.Every, "cron": &e.Cron, "tz": &e.TZ,
		"paused": &e.Paused, "overlap": &e.Overlap, "max_runtime": &e.MaxRuntime, "on_overrun": &e.OnOverrun,
		"catch_up": &e.CatchUp, "catch_up_window": &e.CatchUpWindow, "watermark": &e.Watermark}
	for k, v := range fields {
		to, ok := targets[k]
		if k == "id" {
			continue
		}
		if !ok {
			return "", e, fmt.Errorf("%w: schedule: unknown field %q", workflow.ErrInvalid, k)
		}
		if err := json.Unmarshal(v, to); err != nil {
			return "", e, fmt.Errorf("%w: schedule: %s: %v", workflow.ErrInvalid, k, err)
		}
	}
	return id, e, nil
}

func scheduleID(req *Request) string {
	var id string
	if json.Unmarshal(req.Schedule, &id) == nil {
		return id
	}
	return ""
}

// Reply is the line that answers req.ID: reply (the result of Call) with "id" and "ok"
// set, or, for err, {"id", "ok": false, "code", "error"} (and "forwarded_to" when the
// writer refused a forwarded request).
func Reply(id json.RawMessage, reply map[string]any, err error) map[string]any {
	if err != nil {
		e := errReply(id, ErrorCode(err), err.Error())
		if fe := (*ForwardedError)(nil); errors.As(err, &fe) {
			e["forwarded_to"] = fe.WriterPID
		}
		return e
	}
	reply["id"] = rawOrNull(id)
	reply["ok"] = true
	return reply
}

// InvalidReply refuses a request line that is not a request: code "invalid", msg why.
func InvalidReply(id json.RawMessage, msg string) map[string]any { return errReply(id, "invalid", msg) }

func errReply(id json.RawMessage, code, msg string) map[string]any {
	return map[string]any{"id": rawOrNull(id), "ok": false, "code": code, "error": msg}
}

// rawOrNull is the id a reply echoes: id as it came, or null. An id is always from a line
// ParseRequest checked; one that is not valid UTF-8 or JSON is never echoed raw.
func rawOrNull(id json.RawMessage) any {
	if len(id) == 0 || !jsontext.Value(id).IsValid() { // UTF-8, no lone surrogate, no duplicate key
		return nil
	}
	return id
}

// ErrorCode maps an error to its control-channel code (read_only, invalid, not_found,
// conflict, internal, or the code a forwarding writer answered).
func ErrorCode(err error) string {
	if fe := (*ForwardedError)(nil); errors.As(err, &fe) && fe.Code != "" {
		return fe.Code // the writer's code, as it answered
	}
	switch {
	case errors.Is(err, ErrReadOnly), errors.Is(err, ErrClosed), errors.Is(err, store.ErrNotWriter),
		errors.Is(err, store.ErrFenced), errors.Is(err, ErrLockLost): // this window no longer writes
		return "read_only"
	case errors.Is(err, workflow.ErrInvalid), errors.Is(err, store.ErrInvalid):
		return "invalid"
	case errors.Is(err, workflow.ErrNotFound):
		return "not_found"
	case errors.Is(err, workflow.ErrConflict):
		return "conflict"
	}
	return "internal"
}

// maskSecrets returns copies of wfs in which the value of every secret-named environment
// variable (workflow.IsSecretName) is workflow.SecretMask. The document keeps the real
// values for the executor; replies never carry them.
func maskSecrets(wfs []store.Workflow) []store.Workflow {
	out := make([]store.Workflow, len(wfs))
	for i, wf := range wfs {
		out[i] = wf.Clone()
		for j := range out[i].Steps {
			for k := range out[i].Steps[j].Env {
				if workflow.IsSecretName(k) {
					out[i].Steps[j].Env[k] = workflow.SecretMask
				}
			}
		}
	}
	return out
}

// keepRetention keeps the workflow's history retention when update_workflow's object does
// not name "retention" (a script that knows nothing of it must not reset it; "retention":
// null sets the defaults).
func keepRetention(def *store.Workflow, cur *store.Workflow, raw json.RawMessage) {
	var keys map[string]json.RawMessage
	if cur == nil || cur.Retention == nil || json.Unmarshal(raw, &keys) != nil {
		return
	}
	if _, named := keys["retention"]; !named {
		r := *cur.Retention
		def.Retention = &r
	}
}

// keepMaskedSecrets lets a client send back a definition it got from snapshot: a secret
// value that is still the mask keeps the stored value of the same step and variable.
func keepMaskedSecrets(def *store.Workflow, cur *store.Workflow) {
	if cur == nil {
		return
	}
	for j := range def.Steps {
		for k, v := range def.Steps[j].Env {
			if v == workflow.SecretMask && workflow.IsSecretName(k) && j < len(cur.Steps) {
				if real, ok := cur.Steps[j].Env[k]; ok {
					def.Steps[j].Env[k] = real
				}
			}
		}
	}
}
