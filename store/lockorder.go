// Lock order in package store. A goroutine that holds a lock may take only the locks
// below it, never one above; a lock marked "leaf" takes nothing while held.
//
//  1. Store.turn (the commit token, a channel of one): Update's committer and Checkpoint
//     hold it across a whole commit or checkpoint.
//  2. Store.qmu (leaf): held by the committer, with the turn, only to take the queue, and
//     by a caller only to add its update. Never held with Store.mu.
//  3. Store.mu: the document in memory, the WAL, the codec, the epoch. Taken with the turn
//     in commit and Checkpoint, alone by View, Reload, Refresh and the epoch calls.
//     Under it run the update functions, which must not call the Store again, and
//     Options.BeforeSave, which takes the caller's locks (host's Window.mu): so the
//     caller must never hold such a lock while it calls the Store. The home's DocHome
//     methods run under it too (all but Follow, whose goroutine takes no Store lock).
//  4. Archive.wmu (leaf): appends, taken under Store.mu by a save that archives runs;
//     compaction takes it alone and briefly.
//  5. Archive.mu (leaf): the archive's index; never held with Archive.wmu.
//  6. Audit.mu (leaf): one audit log's appends and rotation.

package store
