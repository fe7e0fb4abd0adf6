// Package workflow is the logic over a workflows document: definitions, runs, the
// concurrency lane, the reaper, schedules, and the executor that runs steps as child
// processes. It never touches workflows.json itself; the caller passes a document (inside
// store.Update) or an Updater.
//
// README.md in this folder is its design: runs and lanes, the supervisors and their
// journals, the reaper, who may delete what, how schedules run and the DST rule's
// implementation.
package workflow
