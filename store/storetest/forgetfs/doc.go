// Package forgetfs is a FUSE file system for tests that forgets, at a simulated power cut,
// everything that was not made durable: the instrument Baton's durability claims hang on
// (after LazyFS, which etcd's robustness tests and Jepsen use).
//
// # Basics
//
// Mount passes every operation through to a backing folder and keeps, in memory, the
// durable state of what lies under it. A power cut (PowerCut) freezes that state at once,
// stops the processes the test names (kill -9), cuts the FUSE connection (every further
// operation on the mount fails), unmounts, and puts the backing folder back to exactly the
// durable state. The test then opens the backing folder again, directly or through a new
// mount.
//
// # The model
//
// A file or folder is identified by its backing inode and birth time. The durable state is:
//
//   - for each file: its whole content as of its last fsync or fdatasync (both count the
//     same); a file never synced since the mount is empty;
//   - for each folder: its entries (name, identity, kind, permissions, a symbolic link's
//     target) as of its last fsync; a folder never synced since the mount is empty.
//
// At the mount, everything under the backing folder is durable. The restored tree starts at
// the root's durable entries and descends: a name is there only if its folder's last fsync
// saw it, and its content is what its own last fsync saw. So a created, renamed or removed
// name is undone unless its folder was fsynced after; a folder made with mkdir vanishes,
// with all it holds, unless its parent was fsynced after the mkdir; data written but not
// fsynced is lost, whole (never a torn page: the cut keeps the old content entirely).
//
// # Caveats
//
// It is stricter than most real file systems (ext4 in data=ordered mode often keeps a new
// name with a file's fsync), which is what a test wants: it must hold on any POSIX file
// system. It is also simpler: times, owners and extended attributes are those of the
// restore; a file reachable by two durable names (a hard link) comes back as two files; a
// write torn inside a page, and reordering between fsyncs of different files, are not
// simulated (each sync is a whole snapshot of one file or folder). Every fsync copies the
// whole file, so it suits the small files of a test home. File locks are the kernel's own
// (the mount does not forward them), which is what processes on one machine see.
package forgetfs
