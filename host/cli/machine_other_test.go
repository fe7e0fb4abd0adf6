//go:build !linux

package cli_test

// hideMachine needs Linux's mount and UTS namespaces; elsewhere TestMigrateNeedsAMachineID
// does not exist and no child is asked to hide its machine.
func hideMachine() {}
