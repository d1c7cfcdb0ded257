package cmdbuffer

import (
	"slices"
)

// runHooks applies the hooks to each run of typed commands in plan and returns the shortened
// plan.
func (b *Buffer[T, C]) runHooks(recs []*Recorder[T, C], plan []ref) []ref {
	cmd := func(p ref) *C { return &recs[p.rec].cmds[p.idx] }
	h := &b.hooks
	out := plan[:0]
	for i := 0; i < len(plan); {
		if plan[i].fn {
			out = append(out, plan[i])
			i++
			continue
		}
		j := i
		for j < len(plan) && !plan[j].fn {
			j++
		}
		run := plan[i:j]
		if h.Dedup || h.Reduce != nil {
			if b.seen == nil {
				b.seen = make(map[uint64]int)
			}
			clear(b.seen)
			n := 0
			if h.Dedup { // keep the last of each key: walk backwards, compact to the end
				n = len(run)
				for k := len(run) - 1; k >= 0; k-- {
					key := h.Key(cmd(run[k]))
					if _, dup := b.seen[key]; dup {
						continue
					}
					b.seen[key] = k
					n--
					run[n] = run[k]
				}
				kept := copy(run, run[n:])
				b.coalesced += len(run) - kept
				run = run[:kept]
			} else {
				for k := range run {
					key := h.Key(cmd(run[k]))
					if first, dup := b.seen[key]; dup {
						h.Reduce(cmd(run[first]), cmd(run[k]))
						continue
					}
					b.seen[key] = n
					run[n] = run[k]
					n++
				}
				b.coalesced += len(run) - n
				run = run[:n]
			}
		}
		if h.Sort != nil {
			slices.SortStableFunc(run, func(a, c ref) int { return h.Sort(cmd(a), cmd(c)) })
		}
		out = append(out, run...)
		i = j
	}
	return out
}
