// Package host is who this process is: its identity, its liveness evidence, state.lock,
// the role state machine (reader, promoting, writer, closed), the lock watcher and the
// BecomeWriter transition. A Core is the core of one process on a home, which the UI, the control channel
// (host/control) and the command line (host/cli) drive.
//
// README.md in this folder is its design: the writer term, the takeover, the hand-over,
// roles, the home folder's layout and liveness files, other users and the file system,
// the control channel's protocol (v1) and forwarding.
package host
