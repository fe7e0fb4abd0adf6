//go:build !wasm && !test_web_driver

package glfw

import (
	"fmt"

	"fyne.io/fyne/v2"

	"github.com/go-gl/glfw/v3.3/glfw"
)

func (d *gLDriver) initGLFW() {
	err := glfw.Init()
	if err != nil {
		fyne.LogError("failed to initialise GLFW", err)
		return
	}

	initCursors()
}

func (d *gLDriver) pollEvents() {
	glfw.PollEvents() // This call blocks while window is being resized, which prevents freeDirtyTextures from being called
}

// canWaitEvents: the run loop may sleep in waitEvents (Baton's patch, see wakeLoop).
const canWaitEvents = true

// waitEvents blocks until an event arrives for a window, or postEmptyEvent is called, and
// dispatches the events.
func waitEvents() {
	glfw.WaitEvents()
}

// postEmptyEvent makes waitEvents return. Any goroutine.
//
// go-gl/glfw hands GLFW's errors over through one global channel, and each of its calls
// panics on an error found there: an error raised on the main thread at that moment (a
// paste with no text on the clipboard, say) could be picked up here, on another goroutine,
// and crash the window. The main thread loses nothing it needed by it.
func postEmptyEvent() {
	defer func() {
		if r := recover(); r != nil {
			fyne.LogError("glfw.PostEmptyEvent", fmt.Errorf("%v", r))
		}
	}()
	glfw.PostEmptyEvent()
}

func (d *gLDriver) Terminate() {
	glfw.Terminate()
}
