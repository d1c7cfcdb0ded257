// Package lazyguarded is design 1 of deferbench: a lazy Guarded — a target behind a
// per-object FIFO pipe of jobs whose write jobs park until a flush.
//
// It is design 1 of the five deferbench compares (docs/library.md lists them).
// A Guarded[T] puts a target of any type T behind a pipe.
// Every job declares Read or Write access; readers run concurrently with readers, a writer
// runs alone, and the pipe is FIFO: the first job that cannot be admitted holds back every job
// behind it. The Guarded is lazy: a write job is admitted to the pipe but does not run; it
// parks until Flush drains the pipe in pipe order under one write hold.
//
// # Per-command cost
//
// Every staged command is a full job: a closure over the command, a control block (Task) with
// its own completion channel, linked into the pipe under the pipe's mutex. Nothing batches
// this away; it is the cost the design study sets against design 2's per-recorder buffers
// (there, a typed record appended to private storage, no lock). The task handle is what the
// design gets in return: each staged command can be waited on.
//
// # Reader modes
//
// The mode is chosen at construction and named by the constructor:
//
//	NewReadersWait  a read submitted behind a parked write waits for the flush and observes
//	                exactly the writes before it (pure lazy: no reader parallelism while
//	                writes are parked). Such reads run inside the flush, on the flushing
//	                goroutine, in their FIFO place between the writes.
//	NewReadersPass  reads pass parked writes and run at once against the pre-flush state:
//	                an explicit staleness opt-in. Reads still wait behind a running flush.
//
// An admitted read runs on its own goroutine; Read returns its task without waiting.
//
// # Order
//
// Across goroutines, commands apply in pipe order: the order in which stages acquired the
// pipe's mutex. That is goroutine timing, not reproducible from run to run; the ECS flavour
// declares it (Capabilities.ReproducibleOrder false) and ignores sort keys. FIFO within one
// recorder holds.
//
// # Failure policy
//
// A flush that reaches a failing write stops there: the jobs before it stay done, the failing
// job and everything behind it stay parked, and the next flush resumes at the failing job
// without replaying anything. Discard drops the parked writes; their tasks complete with
// ErrDiscarded.
//
// # ECS flavour
//
// NewECS binds a Guarded[ecs.World] to a deferral.Core and implements deferral.Strategy:
// Name "lazyguarded" (ReadersWait) or "lazyguarded-pass" (ReadersPass); Factory and
// FactoryPass make them.
package lazyguarded
