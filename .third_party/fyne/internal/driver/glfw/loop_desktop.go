//go:build !wasm && !test_web_driver

package glfw

import (
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
func postEmptyEvent() {
	glfw.PostEmptyEvent()
}

func (d *gLDriver) Terminate() {
	glfw.Terminate()
}
