package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// Handoverer is implemented by strategies whose producers say when they are done: Handover
// hands r's staged commands over to the next commit, and the cross-recorder apply order is
// the hand-over order (a recorder not handed over joins at the commit). r may stage again
// afterwards; its commands keep one FIFO numbering (deferral.Pos) across its hand-overs until a
// commit drains or Discard, hand-overs made by closures during a commit included.
type Handoverer interface {
	Handover(r *deferral.Recorder)
}

// TestHandover runs the hand-over suite against strategies f makes, which must implement
// Handoverer; each row is a subtest on a fresh World and strategy:
//
//	func TestConformanceHandover(t *testing.T) { conformance.TestHandover(t, handrolled.Factory) }
func TestHandover(t *testing.T, f Factory) {
	t.Helper()
	runRows(t, "TestHandover", f, []row{
		{"HandoverOrder", checkHandoverOrder, varyKey},
		{"HandoverOrderInterleaved", checkHandoverOrderInterleaved, varyCmd},
		{"HandoverNumberingAcrossHandovers", checkHandoverNumbering, varyCmd},
		{"HandoverDuringDrainedCommitNumbering", checkHandoverDuringDrainedCommit, varyCmd},
		{"HandoverDuringFailedCommitNumbering", checkHandoverDuringFailedCommit, varyCmd},
		{"HandoverDuringCommitFailsNext", checkHandoverDuringCommitFailsNext, varyCmd},
		{"HandoverRunEndsAtRecorder", checkHandoverRunEndsAtRecorder, varyCmd},
		{"HandoverDiscard", checkHandoverDiscard, varyCmd},
	})
}

// checkHandoverRunEndsAtRecorder: two recorders handed over one after the other, with no
// closure between their commands: a failing command of the second is named by the second
// recorder and its own index, the first's commands and the second's before it applied.
func checkHandoverRunEndsAtRecorder(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e0, e1 := x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0))
	r0, r1 := x.rec(), x.rec()
	r0.Set(e0, pt(1, 1))
	r0.Set(e0, pt(2, 2))
	h.Handover(r0)
	r1.Set(e1, pt(3, 3))
	broken := new(bool)
	cause := x.failing(r1, e1, v2(1, 1), broken) // r1's index 1
	h.Handover(r1)
	x.wantFailedAt("commit failing at r1's second command", x.s.Commit(), deferral.Pos{Recorder: r1.Index(), Index: 1}, cause)
	want(x, "position of e0 (r0 applied)", x.pos("e0", x.w, e0), v2(2, 2))
	want(x, "position of e1 (r1's prefix applied)", x.pos("e1", x.w, e1), v2(3, 3))
	x.fixFailing(e1, broken)
	x.commit("retry after the fix", x.s)
}

// checkHandoverDiscard: Discard drops commands handed over before it, those of a recorder
// not handed over, and those a closure handed over during a commit, counting each once;
// nothing of them applies later, and a recorder that stages after a Discard numbers its
// commands from 0 again.
func checkHandoverDiscard(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e := x.create(x.w, pt(0, 0))
	r0, r1 := x.rec(), x.rec()
	r0.Set(e, pt(1, 1))
	r0.Set(e, pt(1, 2))
	h.Handover(r0)
	r1.Set(e, pt(1, 3))
	want(x, "discard of two commands handed over and one not", x.s.Discard(), 3)
	want(x, "pending after the discard", x.s.Pending(), 0)
	x.commit("commit after the discard", x.s)
	want(x, "position of e (nothing discarded applies)", x.pos("e", x.w, e), v2(0, 0))
	r0.Do(func(*ecs.World) error {
		r0.Set(e, pt(2, 2))
		r0.Set(e, pt(2, 3))
		h.Handover(r0)
		return nil
	})
	r0.Set(e, pt(3, 3))
	h.Handover(r0)
	x.commit("commit whose closure hands two commands over", x.s)
	want(x, "pending after it", x.s.Pending(), 2)
	want(x, "discard of what the closure handed over", x.s.Discard(), 2)
	want(x, "pending after the second discard", x.s.Pending(), 0)
	broken := new(bool)
	cause := x.failing(r0, e, v2(1, 1), broken)
	r0.Set(e, pt(4, 4))
	h.Handover(r0)
	x.wantFailedAt("commit failing at the first command staged after the discard", x.s.Commit(), deferral.Pos{Recorder: r0.Index(), Index: 0}, cause)
	want(x, "position of e (nothing discarded applied)", x.pos("e", x.w, e), v2(3, 3))
	x.fixFailing(e, broken)
	x.commit("retry after the cause is fixed", x.s)
	want(x, "position of e", x.pos("e", x.w, e), v2(4, 4))
	want(x, "pending", x.s.Pending(), 0)
}

// checkHandoverOrder: recorders apply in the order they were handed over, whatever their
// numbers and sort keys; a recorder never handed over applies after them.
func checkHandoverOrder(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e := x.create(x.w, pt(0, 0))
	r0, r1, r2 := x.rec(), x.rec(), x.rec()
	r0.Set(e, pt(0, 1))
	r1.Set(e, pt(1, 1))
	r2.Set(e, pt(2, 1))
	h.Handover(r2)
	h.Handover(r0)
	x.commit("commit after handing over r2, then r0 (r1 joins at the commit)", x.s)
	want(x, "position of e (r1, never handed over, applies last)", x.pos("e", x.w, e), v2(1, 1))
	r1.Set(e, pt(1, 2))
	r0.Set(e, pt(0, 2))
	h.Handover(r0)
	h.Handover(r1)
	x.commit("commit after handing over r0, then r1", x.s)
	want(x, "position of e (r1 handed over last)", x.pos("e", x.w, e), v2(1, 2))
}

// checkHandoverNumbering: a recorder handed over twice before one commit numbers its
// commands in one FIFO: the failing command after the second hand-over names its index
// counted over both.
func checkHandoverNumbering(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Set(e, pt(1, 1))
	r.Set(e, pt(2, 2))
	h.Handover(r)
	r.Set(e, pt(3, 3))
	broken := new(bool)
	cause := x.failing(r, e, v2(1, 1), broken)
	h.Handover(r)
	x.wantFailedAt("commit failing at the second hand-over's second command", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 3}, cause)
	want(x, "position of e (the prefix applied)", x.pos("e", x.w, e), v2(3, 3))
	x.wantFailedAt("retry", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 3}, cause)
	x.fixFailing(e, broken)
	x.commit("retry after the cause is fixed", x.s)
	want(x, "pending", x.s.Pending(), 0)
}

// checkHandoverDuringDrainedCommit: a closure that stages on r and hands r over during a
// commit that drains leaves those commands pending, numbered from 0 in the next commit; what
// r stages after that commit follows them, also when it fails on a retry.
func checkHandoverDuringDrainedCommit(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Set(e, pt(1, 1))
	r.Do(func(*ecs.World) error {
		r.Set(e, pt(2, 2))
		r.Set(e, pt(3, 3))
		h.Handover(r)
		return nil
	})
	r.Set(e, pt(4, 4))
	h.Handover(r)
	x.commit("commit whose closure stages two commands and hands them over", x.s)
	want(x, "pending after it (what the closure handed over)", x.s.Pending(), 2)
	want(x, "position of e", x.pos("e", x.w, e), v2(4, 4))
	broken := new(bool)
	cause := x.failing(r, e, v2(1, 1), broken)
	h.Handover(r)
	x.wantFailedAt("next commit, failing after the two handed over", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 2}, cause)
	want(x, "position of e (the handed-over commands applied)", x.pos("e", x.w, e), v2(3, 3))
	r.Set(e, pt(5, 5))
	h.Handover(r)
	x.wantFailedAt("retry", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 2}, cause)
	x.fixFailing(e, broken)
	x.commit("retry after the cause is fixed", x.s)
	want(x, "position of e", x.pos("e", x.w, e), v2(5, 5))
	want(x, "pending", x.s.Pending(), 0)
}

// checkHandoverDuringFailedCommit: what a closure hands over during a commit that then
// fails is numbered after the failed commit's commands of that recorder, as anything staged
// before the commit drains.
func checkHandoverDuringFailedCommit(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Do(func(*ecs.World) error {
		r.Set(e, pt(2, 2))
		h.Handover(r)
		return nil
	})
	broken := new(bool)
	cause := x.failing(r, e, v2(1, 1), broken)
	h.Handover(r)
	x.wantFailedAt("commit failing at index 1", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, cause)
	r.Set(e, pt(3, 3))
	x.failing(r, e, v2(1, 1), new(bool)) // index 4: after the suffix and the handed-over Set
	h.Handover(r)
	x.fixFailing(e, broken)
	if x.v.closure {
		x.wantFailedAt("retry after mending the first closure", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 4}, cause)
	} else {
		x.commit("retry after the cause is fixed", x.s)
		want(x, "position of e", x.pos("e", x.w, e), v2(3, 3))
	}
	x.s.Discard()
}

// checkHandoverOrderInterleaved: hand-overs interleave across recorders, a recorder handing
// over twice with another's hand-over between: the commit applies the segments in hand-over
// order (typed commands and closures alike, a recorder never handed over last), and a
// failing command in a recorder's second segment names its index counted over both of its
// segments; the retry resumes there, the other segments not replayed.
func checkHandoverOrderInterleaved(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e := x.create(x.w, pt(0, 0))
	r0, r1, r2 := x.rec(), x.rec(), x.rec()
	var log []string
	seg := func(r *deferral.Recorder, tag string, v float64) {
		r.Set(e, pt(v, 0))
		r.Do(func(w *ecs.World) error {
			log = append(log, fmt.Sprintf("%s@%v", tag, x.pos("closure "+tag, w, e).X))
			return nil
		})
	}
	seg(r2, "r2", 5) // never handed over: applies after every hand-over
	seg(r0, "r0a", 1)
	h.Handover(r0)
	seg(r1, "r1", 2)
	h.Handover(r1)
	seg(r0, "r0b", 3)
	h.Handover(r0)
	x.commit("commit after handing over r0, r1, r0 again", x.s)
	wantLog := "r0a@1 r1@2 r0b@3 r2@5"
	want(x, "apply order (closures log the position the typed set before them left)", strings.Join(log, " "), wantLog)
	want(x, "position of e (r2, never handed over, last)", x.pos("e", x.w, e), v2(5, 0))

	log = nil
	f := x.create(x.w, pt(0, 0))
	r1.Set(f, pt(1, 1))
	h.Handover(r1)
	seg(r0, "r0c", 6)
	h.Handover(r0)
	r1.Set(f, pt(2, 2))
	broken := new(bool)
	cause := x.failing(r1, f, v2(1, 1), broken)
	r1.Set(f, pt(3, 3))
	h.Handover(r1)
	at := deferral.Pos{Recorder: r1.Index(), Index: 2}
	x.wantFailedAt("commit failing in r1's second segment", x.s.Commit(), at, cause)
	want(x, "apply order before the failure", strings.Join(log, " "), "r0c@6")
	want(x, "position of f (r1's commands before the failing one applied)", x.pos("f", x.w, f), v2(2, 2))
	want(x, "pending (the failing command and its suffix)", x.s.Pending(), 2)
	x.wantFailedAt("retry with the cause unfixed", x.s.Commit(), at, cause)
	x.fixFailing(f, broken)
	x.commit("retry after the cause is fixed", x.s)
	want(x, "apply order after the retry (nothing replayed)", strings.Join(log, " "), "r0c@6")
	want(x, "position of f", x.pos("f", x.w, f), v2(3, 3))
	want(x, "pending", x.s.Pending(), 0)
}

// checkHandoverDuringCommitFailsNext: commands a closure stages and hands over during a
// drained commit are the first of the next commit, numbered from 0: a failing one among them
// is named by its index there, through a retry.
func checkHandoverDuringCommitFailsNext(x *fixture) {
	h := need[Handoverer](x, "TestHandover")
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	broken := new(bool)
	var cause error
	r.Set(e, pt(1, 1))
	r.Do(func(*ecs.World) error {
		r.Set(e, pt(2, 2))
		cause = x.failing(r, e, v2(1, 1), broken)
		r.Set(e, pt(3, 3))
		h.Handover(r)
		return nil
	})
	r.Set(e, pt(4, 4))
	h.Handover(r)
	x.commit("commit whose closure hands over a failing command", x.s)
	want(x, "pending after it (what the closure handed over)", x.s.Pending(), 3)
	at := deferral.Pos{Recorder: r.Index(), Index: 1}
	x.wantFailedAt("next commit, failing at the second command the closure handed over", x.s.Commit(), at, cause)
	want(x, "position of e", x.pos("e", x.w, e), v2(2, 2))
	x.wantFailedAt("retry", x.s.Commit(), at, cause)
	x.fixFailing(e, broken)
	x.commit("retry after the cause is fixed", x.s)
	want(x, "position of e", x.pos("e", x.w, e), v2(3, 3))
	want(x, "pending", x.s.Pending(), 0)
}
