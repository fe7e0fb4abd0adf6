// Package etcdhome keeps a Baton home under a key prefix in etcd: the primitives an etcd
// home is built from, each tested against a real etcd.
//
// # Basics
//
// A Home is a prefix on an etcd client. Campaign makes a window the writer: an election on
// <prefix>/writer over a session lease; the Term it returns carries the epoch (the
// CreateRevision of its election key) and guards every commit with it, so a writer whose
// lease is gone can never write. Follow reads the document at a revision and follows it
// with a watch. A run's supervisor holds its own lease (Supervise): its alive key is the
// run's liveness evidence, its journal and log tail outlive it.
//
// # Caveats
//
// The package does not decide roles, reap runs or fold journals: it gives the evidence
// and the fenced writes; package host and workflow decide. README.md in this folder is the
// design: key layout, fencing, chunked saves, follow, leases and what is promised.
package etcdhome
