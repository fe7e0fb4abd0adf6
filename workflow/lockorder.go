// Lock order in package workflow. A goroutine that holds a lock may take only the locks
// below it, never one above; a lock marked "leaf" takes nothing while held.
//
//  1. Engine.kickMu: claiming runs against Stop and Detach. kick holds it across its
//     Updater call (so across store's Store.turn and Store.mu, and host's checkLock) and
//     while it registers the runs claimed. So the functions an update runs (claim,
//     EnvFor, OnFinish, a run's end being recorded) must never take kickMu.
//  2. sparePool.mu (leaf): the engine's spare; refill takes it under kickMu.
//  3. Engine.mu: the live runs (procs). Stop and Detach hold it while they ask each
//     follower to stop, which takes follower.mu.
//  4. follower.mu (leaf): a live run's cancel reason.
//
// Leaves in a supervisor process: runProc.mu (the step's process group), the run log's
// mu. Engine.kickMu and Engine.mu are never held while waiting for a run (wg.Wait).

package workflow
