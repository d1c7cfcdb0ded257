package conformance

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
)

// epochPeriod is how many commits it takes the 16 bits of commit epoch a placeholder
// carries to come round to the same value.
const epochPeriod = 1 << 16

// checkPlaceholderEpochWrap: a placeholder from a commit 65,536 commits ago (and a few
// commits either side) names nothing: commands on it are skipped, it does not resolve, and it
// is not confused with the placeholder the same recorder mints at the same place in the
// current commit, although both carry the same 16-bit epoch.
func checkPlaceholderEpochWrap(x *fixture) {
	r := x.rec()
	p := r.Create(pt(1, 1))
	x.commit("commit of the old placeholder", x.s)
	ep := x.resolve("old placeholder", x.s, p)
	for range epochPeriod - 4 {
		if err := x.s.Commit(); err != nil {
			x.Fatalf("empty commit: got %v, want nil", err)
		}
	}
	for k := -3; k <= 3; k++ {
		op := fmt.Sprintf("%d commits after the old placeholder's", epochPeriod+k)
		q := r.Create(pt(2, 2)) // the recorder's first create of the commit, as p was
		r.Set(p, pt(9, 9))
		r.Add(p, vl(9, 9))
		x.commit(op, x.s)
		eq := x.resolve(op+": new placeholder", x.s, q)
		want(x, op+": position of the entity the old placeholder made", x.pos("ep", x.w, ep), v2(1, 1))
		want(x, op+": position of the entity the new placeholder made", x.pos("eq", x.w, eq), v2(2, 2))
		if _, err := x.s.Resolve(p); !x.wantIs(op+": resolve the old placeholder", err, deferral.ErrUnresolved) {
			return
		}
	}
}
