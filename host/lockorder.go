// Lock order in package host. A goroutine that holds a lock may take only the locks below
// it, never one above; a lock marked "leaf" takes nothing while held. Package store's
// and package workflow's locks (store/lockorder.go, workflow/lockorder.go) sit between
// the host's outer and inner locks: a commit calls BeforeSave (checkLock) with Store.mu
// held, and checkLock takes Core.mu.
//
//  1. retentionState.mu: one retention pass at a time; the pass calls the Store.
//  2. (workflow's Engine.kickMu, then store's Store.turn and Store.mu.)
//  3. Core.pubMu: publish, one at a time. Under it publish takes Core.mu briefly to
//     read the role, then hub.mu to send.
//  4. Core.mu (leaf for the Store: never call the Store, the Engine or hub.emit while
//     holding it). move holds it while it runs its guard and apply, which only set
//     fields and cancel the term's context; the role event is sent after it is released.
//  5. hub.mu: the subscribers; emit holds it while it queues on each Sub.
//  6. Sub.mu (leaf): one subscriber's queue.
//
// Leaves, held alone: Core.auditedMu (released before the audit record is written),
// forward.Watcher.mu, Control.mu (one line at a time on the control channel's output).

package host
