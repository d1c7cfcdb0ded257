package hybrid

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
)

// Sentinel errors of the graph; match with errors.Is.
var (
	// ErrCycle: the declared accesses and explicit edges order some nodes in a circle. The
	// error is a *CycleError naming them.
	ErrCycle = errors.New("cycle in task graph")
	// ErrCompiled: the graph was changed or compiled again after Compile succeeded. A graph is
	// built once and executed many times.
	ErrCompiled = errors.New("graph already compiled")
	// ErrNotCompiled: Execute or Node.Run before Compile succeeded.
	ErrNotCompiled = errors.New("graph not compiled")
	// ErrRunning: Execute or Node.Run while the graph is executing (from another goroutine, or
	// from inside one of its own nodes).
	ErrRunning = errors.New("graph is executing")
	// ErrDeclaration: a node's declarations are malformed (nil function or resource, a resource
	// that is not comparable, one resource declared with two different modes, an edge to a
	// node of another graph, two nodes of one name, a buffer flushed twice, or a buffer with
	// appenders but no flush node). Compile reports every such problem, each wrapping this.
	ErrDeclaration = errors.New("invalid graph declaration")
)

// Mode is the kind of access a node declares on a resource.
type Mode uint8

// The access modes. Two accesses to one resource conflict, and are then ordered by
// declaration order, unless both are ModeRead or both are ModeAppend. ModeFlush is what
// AddFlushNode declares on its buffer: every appender of the buffer runs before it, whatever
// the declaration order.
const (
	ModeRead   Mode = iota + 1 // reads the resource; concurrent with other readers
	ModeWrite                  // reads and changes the resource; runs alone on it
	ModeAppend                 // records into a command buffer; concurrent with other appenders
	ModeFlush                  // commits a command buffer; after every appender
)

var modeNames = [...]string{"", "read", "write", "append", "flush"}

// String returns the mode's lower-case name.
func (m Mode) String() string {
	if int(m) < len(modeNames) && m != 0 {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// conflicts reports whether accesses a and b to one resource must be ordered.
func conflicts(a, b Mode) bool {
	return !(a == ModeRead && b == ModeRead) && !(a == ModeAppend && b == ModeAppend)
}

// Access is one declared access of a node: a resource and a mode. Build it with Read, Write or
// Append. Resources are compared with ==, so a resource is best named by a pointer (*ecs.World,
// *workload.RenderQueue, a *Buffer).
type Access struct {
	res  any
	mode Mode
	buf  CommandBuffer // ModeAppend and ModeFlush: the buffer
}

// Read declares that a node reads res (any comparable value naming the state, usually a
// pointer to it). Readers of one resource run concurrently with each other.
func Read(res any) Access { return Access{res: res, mode: ModeRead} }

// Write declares that a node reads and changes res. A writer runs alone on res: it is ordered
// after every earlier-declared accessor of res and before every later one.
func Write(res any) Access { return Access{res: res, mode: ModeWrite} }

// Append declares that a node records into command buffer b. The node gets its own recorder
// for b (b's Recorder(n) method). Appenders of one buffer run concurrently with each other and
// all before b's flush node. Appending takes no access to b's target: an appender may run
// concurrently with readers of the target.
func Append(b CommandBuffer) Access { return Access{res: b, mode: ModeAppend, buf: b} }

// Resource returns the declared resource.
func (a Access) Resource() any { return a.res }

// Mode returns the declared mode.
func (a Access) Mode() Mode { return a.mode }

// CommandBuffer is a command buffer a graph can declare append access to and flush: *Buffer
// (over any target) and *ECS (the ECS strategy). The interface is closed: its unexported
// methods are implemented only in this package.
type CommandBuffer interface {
	// FlushTarget returns the resource the buffer's flush writes: its target.
	FlushTarget() any
	// Pending returns the number of staged commands not yet applied.
	Pending() int
	// mint mints a recorder for one appending node (a *cmdbuffer.Recorder or a
	// *deferral.Recorder).
	mint() any
	// flush commits the buffer; the flush node's body.
	flush() error
	// label names the buffer in diagnostics.
	label() string
}

// Func is a node's body. ctx is the one Execute was given; n is the node itself, to look up
// its recorders (Buffer.Recorder, ECS.Recorder). A non-nil error fails the node: the nodes
// that depend on it are skipped, and Execute returns the error in a *NodeError.
//
// The body must touch only the resources its node declared, in the declared mode. Go cannot
// check this: an undeclared access is a data race the graph does not order (run the tests with
// -race). Recorders are the exception: a node gets a recorder only for the buffers it declared
// Append on.
type Func func(ctx context.Context, n *Node) error

// Node is one node of a Graph: a function and its declared accesses. Nodes are numbered in
// declaration order from 0; that number orders conflicting accesses and the commit order of
// the recorders minted for appending nodes.
type Node struct {
	g      *Graph
	index  int
	name   string
	fn     Func
	access []Access
	after  []*Node // explicit predecessors
	flush  CommandBuffer

	// Set by Compile.
	recs  []nodeRecorder
	succ  []int32
	npred int32
}

type nodeRecorder struct {
	buf CommandBuffer
	rec any
}

// Name returns the node's name.
func (n *Node) Name() string { return n.name }

// Index returns the node's number in declaration order, from 0.
func (n *Node) Index() int { return n.index }

// Graph returns the graph the node belongs to.
func (n *Node) Graph() *Graph { return n.g }

// Access returns the node's declared accesses (a copy).
func (n *Node) Access() []Access { return slices.Clone(n.access) }

// After adds explicit edges: n runs after each of others. It returns n. Edges that contradict
// the derived order make a cycle, which Compile reports. After panics once the graph is
// compiled.
func (n *Node) After(others ...*Node) *Node {
	n.g.mustBuild("after")
	n.after = append(n.after, others...)
	return n
}

// Before adds explicit edges: n runs before each of others. It returns n.
func (n *Node) Before(others ...*Node) *Node {
	n.g.mustBuild("before")
	for _, o := range others {
		if o == nil {
			n.after = append(n.after, nil) // reported by Compile
			continue
		}
		o.after = append(o.after, n)
	}
	return n
}

// Run runs n's body alone on the calling goroutine, outside any Execute, ignoring its edges:
// the way to retry a failed flush node (the failure policy keeps the failing command and its
// suffix pending; Run resumes there) without re-running the rest of the graph. The caller
// vouches that nothing else touches n's resources meanwhile. Errors: ErrNotCompiled,
// ErrRunning, or the body's error in a *NodeError.
func (n *Node) Run(ctx context.Context) error {
	g := n.g
	if !g.compiled {
		return fmt.Errorf("run node %q: %w", n.name, ErrNotCompiled)
	}
	if !g.running.CompareAndSwap(false, true) {
		return fmt.Errorf("run node %q: %w", n.name, ErrRunning)
	}
	defer g.running.Store(false)
	if err := n.call(ctx); err != nil {
		return &NodeError{Node: n.name, Index: n.index, Err: err}
	}
	return nil
}

// call runs the body, turning a panic into an error.
func (n *Node) call(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r}
		}
	}()
	return n.fn(ctx, n)
}

// recorder returns the recorder Compile minted for n on b; it panics when n did not declare
// Append(b) or the graph is not compiled.
func (n *Node) recorder(b CommandBuffer) any {
	for _, r := range n.recs {
		if r.buf == b {
			return r.rec
		}
	}
	if !n.g.compiled {
		panic(fmt.Sprintf("hybrid: recorder of node %q on %s before Compile", n.name, b.label()))
	}
	panic(fmt.Sprintf("hybrid: node %q did not declare Append(%s): declare every buffer a node records into", n.name, b.label()))
}

// NodeError is the error of one failed node.
type NodeError struct {
	Node  string // the node's name
	Index int    // the node's number
	Err   error  // what the body returned (a *PanicError if it panicked)
}

// Error returns "node I (name): cause".
func (e *NodeError) Error() string { return fmt.Sprintf("node %d (%s): %v", e.Index, e.Node, e.Err) }

// Unwrap returns the cause.
func (e *NodeError) Unwrap() error { return e.Err }

// PanicError is the error of a node body that panicked; Execute recovers the panic so that
// the other nodes finish and the graph stays usable.
type PanicError struct {
	Value any // the value passed to panic
}

// Error returns "panic: value".
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// CycleError is Compile's error when the ordering has a cycle. Nodes names the nodes of one
// cycle in order, the first repeated at the end.
type CycleError struct {
	Nodes []string
}

// Error returns "cycle in task graph: a → b → a".
func (e *CycleError) Error() string {
	return ErrCycle.Error() + ": " + strings.Join(e.Nodes, " → ")
}

// Unwrap returns ErrCycle.
func (e *CycleError) Unwrap() error { return ErrCycle }

// Edge is one ordering between two nodes of a compiled graph: From runs before To.
type Edge struct {
	From, To *Node
	// Reason says why: "write→read on <resource>", "append→flush on <buffer>", "after"
	// (explicit), …; the first reason found when several apply.
	Reason string
}

// String returns "from → to (reason)".
func (e Edge) String() string { return fmt.Sprintf("%s → %s (%s)", e.From.name, e.To.name, e.Reason) }

// Graph is a static task graph: nodes with declared accesses, built once, compiled once into
// a dependency order, and executed many times. Build it from one goroutine; Execute may then be
// called from any goroutine, one Execute at a time.
type Graph struct {
	nodes    []*Node
	names    map[any]string // resource labels
	flushes  map[CommandBuffer]*Node
	workers  int
	compiled bool
	running  atomic.Bool
	edges    []Edge
	topo     []int32 // a topological order, for one-worker runs
	ex       executor
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{names: map[any]string{}, flushes: map[CommandBuffer]*Node{}}
}

func (g *Graph) mustBuild(op string) {
	if g.compiled {
		panic(fmt.Sprintf("hybrid: %s: %v", op, ErrCompiled))
	}
}

// SetWorkers bounds the goroutines Execute runs nodes on, the caller's included; n ≤ 0 means
// runtime.GOMAXPROCS(0) at each Execute (the default). It may be called between Executes.
func (g *Graph) SetWorkers(n int) { g.workers = n }

// NameResource gives res a name for edge reasons and errors (the default is its type).
func (g *Graph) NameResource(res any, name string) { g.names[res] = name }

func (g *Graph) resourceName(res any) string {
	if b, ok := res.(CommandBuffer); ok {
		return b.label()
	}
	if reflect.TypeOf(res).Comparable() {
		if s, ok := g.names[res]; ok {
			return s
		}
	}
	return fmt.Sprintf("%T", res)
}

// AddNode adds a node named name with body fn and the declared accesses, and returns it. It
// panics once the graph is compiled; other mistakes (nil fn, bad declarations) are reported
// by Compile.
func (g *Graph) AddNode(name string, fn Func, access ...Access) *Node {
	g.mustBuild("add node")
	n := &Node{g: g, index: len(g.nodes), name: name, fn: fn, access: slices.Clone(access)}
	g.nodes = append(g.nodes, n)
	return n
}

// AddFlushNode adds the node that commits b, named "flush(<buffer>)", and returns it. It
// declares write access on b's target (so it is ordered against every other accessor of the
// target in declaration order: after earlier readers and writers, before later ones) and flush
// access on b (so it runs after every node that appends to b, declared before or after it). A
// failed flush follows the deferral failure policy: the commands before the failing one stay
// applied, it and its suffix stay pending; retry with the flush node's Run or b's Commit, or
// let the next Execute's flush carry them (after that run's appends in commit order), or
// discard them.
func (g *Graph) AddFlushNode(b CommandBuffer) *Node {
	g.mustBuild("add flush node")
	n := g.AddNode("flush("+b.label()+")", func(context.Context, *Node) error { return b.flush() },
		Write(b.FlushTarget()), Access{res: b, mode: ModeFlush, buf: b})
	n.flush = b
	return n
}

// Nodes returns the nodes in declaration order.
func (g *Graph) Nodes() []*Node { return slices.Clone(g.nodes) }

// Edges returns the compiled graph's edges, derived and explicit, sorted by (From, To); nil
// before Compile.
func (g *Graph) Edges() []Edge { return slices.Clone(g.edges) }

// Compiled reports whether Compile succeeded.
func (g *Graph) Compiled() bool { return g.compiled }

// Compile validates the declarations, derives the edges and mints the recorders. For every
// resource, two nodes whose accesses conflict (write↔read, write↔write, write↔append,
// read↔append) are ordered in declaration order; every appender of a buffer runs before the
// buffer's flush node; explicit After/Before edges are added as given. A cycle is a
// *CycleError (errors.Is ErrCycle) naming the nodes in it; malformed declarations are
// ErrDeclaration errors, all of them joined. On success each appending node gets its own
// recorder per buffer, minted in node order, so that a buffer commits its appenders in node
// order (after any recorder minted on it before Compile), FIFO within, whatever the schedule.
// Compile may be called once; after that the graph is read-only. Errors: ErrCompiled.
func (g *Graph) Compile() error {
	if g.compiled {
		return fmt.Errorf("compile: %w", ErrCompiled)
	}
	if err := g.validate(); err != nil {
		return err
	}
	edges := g.derive()
	topo, err := g.checkCycle(edges)
	if err != nil {
		return err
	}
	g.topo = topo
	for _, n := range g.nodes {
		n.succ, n.npred, n.recs = nil, 0, nil
	}
	for _, e := range edges {
		e.From.succ = append(e.From.succ, int32(e.To.index))
		e.To.npred++
	}
	for _, n := range g.nodes {
		for _, a := range n.access {
			if a.mode == ModeAppend {
				n.recs = append(n.recs, nodeRecorder{buf: a.buf, rec: a.buf.mint()})
			}
		}
	}
	g.edges = edges
	g.compiled = true
	return nil
}

// validate collects every malformed declaration.
func (g *Graph) validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("compile: "+format+": %w", append(args, ErrDeclaration)...))
	}
	names := map[string]int{}
	appended := map[CommandBuffer]*Node{}
	for _, n := range g.nodes {
		if i, dup := names[n.name]; dup {
			bad("node %d and node %d are both named %q", i, n.index, n.name)
		} else {
			names[n.name] = n.index
		}
		if n.fn == nil {
			bad("node %q has a nil function", n.name)
		}
		modes := map[any]Mode{}
		for _, a := range n.access {
			if a.res == nil || (a.mode == ModeAppend && a.buf == nil) {
				bad("node %q declares %s access to a nil resource", n.name, a.mode)
				continue
			}
			if !reflect.TypeOf(a.res).Comparable() {
				bad("node %q declares %s access to a %T, which is not comparable: name it by a pointer", n.name, a.mode, a.res)
				continue
			}
			if m, dup := modes[a.res]; dup && m != a.mode {
				bad("node %q declares %s twice, as %s and %s", n.name, g.resourceName(a.res), m, a.mode)
			}
			modes[a.res] = a.mode
			switch a.mode {
			case ModeAppend:
				if _, ok := appended[a.buf]; !ok {
					appended[a.buf] = n
				}
			case ModeFlush:
				if f, dup := g.flushes[a.buf]; dup && f != n {
					bad("%s has two flush nodes, %q and %q", a.buf.label(), f.name, n.name)
				} else {
					g.flushes[a.buf] = n
				}
			}
		}
		for _, p := range n.after {
			if p == nil || p.g != g {
				bad("node %q is ordered after a node of another graph (or nil)", n.name)
			}
		}
	}
	for b, n := range appended {
		if _, ok := g.flushes[b]; !ok {
			bad("node %q appends to %s, which has no flush node: add one with AddFlushNode (an unflushed buffer is a lost write)", n.name, b.label())
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// derive returns the edges, deduplicated and sorted by (From, To).
func (g *Graph) derive() []Edge {
	type use struct {
		n    *Node
		mode Mode
	}
	uses := map[any][]use{}
	var order []any // resources in first-use order, for deterministic output
	for _, n := range g.nodes {
		for _, a := range n.access {
			if _, ok := uses[a.res]; !ok {
				order = append(order, a.res)
			}
			uses[a.res] = append(uses[a.res], use{n, a.mode})
		}
	}
	seen := map[[2]int]bool{}
	var edges []Edge
	add := func(from, to *Node, reason string) {
		if from == to {
			return
		}
		k := [2]int{from.index, to.index}
		if !seen[k] {
			seen[k] = true
			edges = append(edges, Edge{From: from, To: to, Reason: reason})
		}
	}
	for _, res := range order {
		us := uses[res]
		name := g.resourceName(res)
		for j, uj := range us {
			for _, ui := range us[:j] {
				switch {
				case ui.mode == ModeAppend && uj.mode == ModeFlush:
					add(ui.n, uj.n, "append→flush on "+name)
				case ui.mode == ModeFlush && uj.mode == ModeAppend:
					add(uj.n, ui.n, "append→flush on "+name)
				case conflicts(ui.mode, uj.mode):
					add(ui.n, uj.n, ui.mode.String()+"→"+uj.mode.String()+" on "+name)
				}
			}
		}
	}
	for _, n := range g.nodes {
		for _, p := range n.after {
			add(p, n, "after")
		}
	}
	slices.SortFunc(edges, func(a, b Edge) int {
		if a.From.index != b.From.index {
			return a.From.index - b.From.index
		}
		return a.To.index - b.To.index
	})
	return edges
}

// checkCycle returns a topological order of the nodes, or a *CycleError when edges contain a
// cycle.
func (g *Graph) checkCycle(edges []Edge) ([]int32, error) {
	n := len(g.nodes)
	succ := make([][]int, n)
	indeg := make([]int, n)
	for _, e := range edges {
		succ[e.From.index] = append(succ[e.From.index], e.To.index)
		indeg[e.To.index]++
	}
	queue := make([]int, 0, n)
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, i)
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, s := range succ[queue[k]] {
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if len(queue) == n {
		topo := make([]int32, n)
		for i, v := range queue {
			topo[i] = int32(v)
		}
		return topo, nil
	}
	// Every node left has a predecessor left: walk predecessors until one repeats.
	pred := make([]int, n)
	for i := range pred {
		pred[i] = -1
	}
	for _, e := range edges {
		f, t := e.From.index, e.To.index
		if indeg[f] > 0 && indeg[t] > 0 && pred[t] < 0 {
			pred[t] = f
		}
	}
	start := -1
	for i, d := range indeg {
		if d > 0 {
			start = i
			break
		}
	}
	pos := map[int]int{}
	var walk []int
	for at := start; ; at = pred[at] {
		if p, ok := pos[at]; ok {
			walk = walk[p:]
			break
		}
		pos[at] = len(walk)
		walk = append(walk, at)
	}
	// walk follows predecessors; reverse it into execution order and close the circle.
	slices.Reverse(walk)
	names := make([]string, 0, len(walk)+1)
	for _, i := range walk {
		names = append(names, g.nodes[i].name)
	}
	names = append(names, names[0])
	return nil, fmt.Errorf("compile: %w", &CycleError{Nodes: names})
}
