// Package hybrid is design 4 of deferbench: the cmdbuffer command buffer (design 2) plus a
// static task graph whose nodes declare their access to resources, so that the flush of a
// buffer is a node with derived edges instead of something wired by hand (the
// access-declared graph follows Unreal's Render Dependency
// Graph, built once and run many times instead of rebuilt per frame).
//
// # The graph
//
// A Graph holds nodes added in declaration order; a node is a Func plus declared accesses:
//
//	Read(res)    reads res; concurrent with other readers of res
//	Write(res)   reads and changes res; alone on res
//	Append(buf)  records into command buffer buf through the node's own recorder;
//	             concurrent with other appenders of buf, and with readers of buf's target
//
// AddFlushNode(buf) adds the node that commits buf: it writes buf's target and runs after
// every appender of buf. Compile derives the edges: two accesses to one resource that conflict
// (anything but read–read and append–append) are ordered in declaration order; appenders go
// before their buffer's flush whatever the declaration order; Node.After and Node.Before add
// explicit edges. A cycle — mutual deferral, e.g. a node that reads a buffer's target after
// the flush but also appends to the buffer — is a *CycleError naming the nodes. Compile runs
// once; Execute then runs the graph as often as needed, independent nodes in parallel on a
// bounded pool (the caller plus helpers up to GOMAXPROCS, or SetWorkers).
//
// The rule Go cannot enforce: a node's body must touch only what it declared. An undeclared
// access is not ordered by the graph and is a data race; run tests with -race. Recorders are
// handed only to the nodes that declared Append on their buffer (Buffer.Recorder and
// ECS.Recorder panic otherwise).
//
// # Reproducible commit order
//
// Compile mints one recorder per appending node and buffer, in node order, so a buffer's
// flush applies its appenders' commands in node order (after any recorder minted on the buffer
// before Compile), FIFO within each, whatever order the pool ran the nodes in. Sort keys, where
// a node sets them, come first, as in cmdbuffer.
//
// # Failure
//
// A node that fails (error or panic) skips the nodes that depend on it; every other node
// still runs, and Execute returns the failures as *NodeErrors. A failed flush follows the
// deferral failure policy: the commands before the failing one stay applied, it and its suffix
// stay pending. Retry by running the flush node alone (Node.Run) or committing the buffer
// directly, or discard; an Execute that skipped the flush (a failed producer) carries what was
// staged to the next Execute's flush.
//
// # Targets
//
// Buffer wraps a cmdbuffer.Buffer over any target T (a render queue, a physics world). ECS is
// the strategy for an ecs.World: it implements deferral.Strategy (its Commit runs a one-node
// graph: the derived flush) and is a CommandBuffer for graphs. The particle frame as such a
// graph, with the decisions split over parallel producer nodes, is hybridframe.Frame, in
// the subpackage hybridframe (the strategy itself carries no workload); ECS.BeginDecisions is the mark its decision nodes set.
package hybrid
