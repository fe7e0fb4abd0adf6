package workflow

import "baton/store"

// The seams of a home that workflow speaks (see store/home.go for the document and the
// writer lock): the evidence that a window or a run is dead or alive, and the files a run
// leaves (its log, its journal). Today's folder is their one implementation (FolderRuns
// here; the owner liveness of windows in package host, which owns instance locks); a home
// kept in etcd implements them a second time.

// Evidence proves a window or a run dead or alive. Both answers come from evidence (a
// held lock or lease, a live pid with the same start time and boot, a supervisor's
// journal), never from age: a window or supervisor that is slow, stopped or out of touch
// is alive until its lock or lease is proven gone. On doubt (the evidence cannot be
// read) the answer is alive: nothing is reaped on doubt. The answer may be stale by the
// time it is used; the callers (the writer's reaper) act on "dead" only, which never
// becomes false again for that identity (instance ids and run ids are never reused).
type Evidence interface {
	// OwnerAlive reports whether window o is alive, as window self sees it (self is
	// always alive), and what was seen ("instance lock of pid 12 is free; pid 12 is
	// gone"). The folder: o's instance lock instances/<id>.lock is held (alive) or
	// free (dead), with pid, start time and boot for a process already exiting. It does
	// not block on o.
	OwnerAlive(self, o store.Owner) (alive bool, evidence string)

	// Supervision reads what is known of run id's supervisor: alive while its run lock
	// (the folder: runs/<id>.lock) is held, and its journal if it left one. It may wait
	// briefly for a supervisor that started but has not taken its lock yet (see
	// SupervisionOf), so a run is judged by what its supervisor does.
	Supervision(id string) Supervision
}

// RunFiles keeps the files of runs: the log (runs/<id>.log: the steps' output) and the
// journal (runs/<id>.events: step starts and ends and the run's end, appended durably by
// the supervisor, the truth about a run whose writer died). The supervisor writes them;
// the writer reads a journal at a takeover and removes a settled run's supervisor files.
type RunFiles interface {
	// ReadJournal reads and folds run id's journal as far as it was written; a missing
	// journal is an error wrapping fs.ErrNotExist (see ReadJournal).
	ReadJournal(id string) (Journal, error)

	// LogPath returns where run id's log is, or an error when id cannot name one.
	LogPath(id string) (string, error)

	// RemoveSupervisorFiles removes what run id's supervisor left (not its log) once its
	// outcome is saved; a run whose supervisor lives is refused with
	// ErrSupervisorRunning (the deletion rule). Only the writer calls it.
	RemoveSupervisorFiles(id string) error
}

// FolderRuns returns the run files of home folder home: runs/ under it.
func FolderRuns(home string) RunFiles { return folderRuns(home) }

// folderRuns is RunFiles on a home folder (its path).
type folderRuns string

func (h folderRuns) ReadJournal(id string) (Journal, error) { return ReadJournal(string(h), id) }
func (h folderRuns) LogPath(id string) (string, error)      { return LogPath(string(h), id) }
func (h folderRuns) RemoveSupervisorFiles(id string) error {
	return RemoveSupervisorFiles(string(h), id)
}
