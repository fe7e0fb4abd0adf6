// Package etcdtest gives tests a real etcd cluster and real network faults: a 3-member
// cluster on loopback whose members are separate OS processes (so a test can kill -9, stop
// and restart them), and a proxy per "machine" that the test can cut off from the cluster
// and join again.
//
// # Basics
//
// A package that uses it calls RunMemberIfAsked first thing in its TestMain: members are the
// test binary itself, re-executed, so nothing else is built. Then:
//
//	c := etcdtest.StartCluster(t, 3)            // returns once every member serves
//	cli := etcdtest.Client(t, c.Endpoints()...) // a client with test timings
//	c.Member(i).Kill()                           // SIGKILL; Stop/Cont: SIGSTOP/SIGCONT
//	c.Member(i).Restart()                        // same data folder and ports; rejoins
//	c.WaitHealthy(ctx); c.Leader(ctx)
//	p := etcdtest.NewProxy(t, c.Endpoints())     // one per machine
//	p.Cut(); p.Join()                            // a partition, and its end
//
// Everything ends with the test; members also die with the test process if it is killed.
//
// # Caveats
//
// A write in flight when its leader dies may fail ("request timed out, possibly due to
// previous leader failure") even though the cluster serves the next one, and its outcome is
// unknown: it may be committed. A client's session learns that its lease is gone later than
// the cluster does (see README.md): fencing must come from the cluster, not the client's
// belief. Linux only (Pdeathsig, SO_REUSEPORT, /proc).
package etcdtest
