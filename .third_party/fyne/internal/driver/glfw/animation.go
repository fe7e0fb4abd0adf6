package glfw

import "fyne.io/fyne/v2"

func (d *gLDriver) StartAnimation(a *fyne.Animation) {
	d.animation.Start(a)
	wakeLoop() // Baton's patch: a sleeping run loop ticks the animation
}

func (d *gLDriver) StopAnimation(a *fyne.Animation) {
	d.animation.Stop(a)
}
