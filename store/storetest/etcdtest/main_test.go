package etcdtest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	RunMemberIfAsked()
	os.Exit(m.Run())
}
