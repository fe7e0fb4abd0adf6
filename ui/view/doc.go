// Package view holds the decisions of Baton's window, free of Fyne: what each widget
// shows for a snapshot (texts, which runs are listed and in what order, how the timeline
// packs runs into lanes, what closing would cancel, which controls are enabled). Package
// ui calls these functions and only sets widget fields with what they return.
//
// Nothing here touches a widget, a window or the disk; everything is a plain function of
// a snapshot (store.Doc, host.Status, host.Takeover) and the clock, so it is unit-tested
// without a display.
package view
