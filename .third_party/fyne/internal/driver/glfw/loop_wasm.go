//go:build wasm || test_web_driver

package glfw

import (
	"fyne.io/fyne/v2"

	"github.com/fyne-io/gl-js"
	"github.com/fyne-io/glfw-js"
)

func (d *gLDriver) initGLFW() {
	err := glfw.Init(gl.ContextWatcher)
	if err != nil {
		fyne.LogError("failed to initialise GLFW", err)
		return
	}
}

func (d *gLDriver) pollEvents() {
	glfw.PollEvents() // This call blocks while window is being resized, which prevents freeDirtyTextures from being called
}

// canWaitEvents: in a browser the run loop ticks as upstream's does (Baton's patch, see
// wakeLoop).
const canWaitEvents = false

func waitEvents() {}

func postEmptyEvent() {}

func (d *gLDriver) Terminate() {
	glfw.Terminate()
}
