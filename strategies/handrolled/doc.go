// Package handrolled is design 3 of deferbench: the status quo, what a careful programmer
// writes without a deferral library.
//
// It is design 3 of the five deferbench compares (docs/library.md lists them).
// Each producer appends commands to its own slice, taking no lock. When a producer is done it hands its slice over to a mutex-guarded list. At the sync
// point one gather step copies every handed-over slice, in hand-over order, into one slice,
// and the commit applies that slice front to back. There are no hooks, no arena and no sort:
// the apply order across producers is whatever order the hand-overs happened in — completion
// order, decided by goroutine timing — so it is not reproducible from run to run. FIFO within
// one producer holds.
//
// A Gather[T, C] defers typed commands C (applied by one apply function) and closures to any
// target T. Recorder.Handover is the producer's "I am done". A recorder that did not hand over
// by the time Commit runs is handed over by Commit, in the order such recorders first staged
// since the previous commit (one lock per recorder per commit, taken at its first stage); that
// order is timing too. Producers' slices keep their capacity across commits.
//
// Failure policy (deferral package doc): the gathered slice keeps its unapplied suffix when a
// command fails; a retry applies only that suffix (followed by anything handed over since),
// never the applied prefix.
//
// The ECS flavour, NewECS, binds a Gather[ecs.World, deferral.Command] to a deferral.Core and
// implements deferral.Strategy under the name "handrolled"; ECS.Handover is the hand-over
// point for a deferral.Recorder. Its producers' slices are compact record streams
// (Gather.SetStream, deferral.Stream): records sized to what they carry instead of 72-byte
// Commands, a closure's place a two-word slot; a hand-over passes the array on as it is, and
// the gather step copies the records into one gathered stream.
package handrolled
