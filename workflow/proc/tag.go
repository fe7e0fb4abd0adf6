package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Tag names a process in the names of the temp files it creates, so that a cleaner can
// tell whether their creator lives: pid, start time and the first 8 characters of the boot
// id, joined by dots.
func Tag(pid int, start uint64, boot string) string {
	return fmt.Sprintf("%d.%d.%.8s", pid, start, strings.ReplaceAll(boot, "-", ""))
}

// SelfTag is this process's Tag.
var SelfTag = sync.OnceValue(func() string {
	start, _ := Start(os.Getpid())
	return Tag(os.Getpid(), start, BootID())
})

// TagGone reports whether the process a Tag names is proven gone: it ran in an earlier
// boot, or its pid is free, a zombie, dying or another process (another start time). A tag
// that cannot be read proves nothing (false).
func TagGone(tag string) bool {
	f := strings.Split(tag, ".")
	if len(f) != 3 {
		return false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 || start == 0 {
		return false
	}
	if mine := strings.Split(Tag(0, 0, BootID()), ".")[2]; f[2] != mine {
		return true // every process of an earlier boot is gone
	}
	return Exiting(pid, start)
}
