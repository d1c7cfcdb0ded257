package workload

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// Spawn stages the spawn of one particle the way game code often writes it, in three
// commands: a create carrying its Position, then its Velocity and its Lifetime (life seconds)
// added through the create's placeholder. It returns the placeholder. On archetype storage a
// commit that applies the three one by one places the entity and moves its row twice; one that
// merges a create with the adds on its placeholder places it once, in its final table. A life ≤
// 0 is refused by Lifetime's validator at commit (the entity keeps Position and Velocity).
func Spawn(rec *deferral.Recorder, pos, vel Vec2, life float64) ecs.Entity {
	p := rec.Create(Position.Value(pos))
	rec.Add(p, Velocity.Value(vel))
	rec.Add(p, Lifetime.Value(Life{Remaining: life}))
	return p
}

// Stun, Burn and Root are the tag status effects (no data); Poison, Slow and Shield carry
// data: damage per second, the speed factor, the hit points absorbed.
type (
	Stun   struct{}
	Burn   struct{}
	Root   struct{}
	Poison struct{ DPS float64 }
	Slow   struct{ Factor float64 }
	Shield struct{ HP float64 }
)

// The status-effect components of EffectChurn; none has a validator.
var (
	Stunned  = ecs.NewComponent[Stun]("Stunned", nil)
	Burning  = ecs.NewComponent[Burn]("Burning", nil)
	Rooted   = ecs.NewComponent[Root]("Rooted", nil)
	Poisoned = ecs.NewComponent[Poison]("Poisoned", nil)
	Slowed   = ecs.NewComponent[Slow]("Slowed", nil)
	Shielded = ecs.NewComponent[Shield]("Shielded", nil)
)

// Effects is the number of status effects EffectChurn toggles: the three tags and the three
// data components above.
const Effects = 6

// EffectChurn is the status-effect churn: every frame each of its entities gains or loses 1 to
// 3 of the Effects status effects, the choice a hash of the seed, the frame and the entity's
// index (so two runs with one seed stage the same commands). An effect the entity holds is
// removed, one it lacks is added with a value, so each entity's commands are adjacent in
// commit order and together one change of its component set: on archetype storage one move
// when a commit merges them, one per command when it does not.
//
// EffectChurn tracks which effects each entity holds after each frame's commit itself, so it
// reads nothing of the world while staging; its Stage must therefore be followed by a commit
// that applies every command (the entities alive, the commands not discarded). It is not safe
// for concurrent use.
type EffectChurn struct {
	ents  []ecs.Entity
	held  []uint8 // bit i: ents[j] holds effect i
	seed  uint64
	frame uint64
}

// NewEffectChurn returns the churn over ents, which hold none of the status effects, with the
// choices drawn from seed. The caller keeps ents alive while it stages for them.
func NewEffectChurn(ents []ecs.Entity, seed uint64) *EffectChurn {
	return &EffectChurn{ents: ents, held: make([]uint8, len(ents)), seed: seed}
}

// Stage stages one frame of the churn through rec, StageEntity for every entity and then
// EndFrame, and returns the number of commands staged (component operations, 1 to 3 per
// entity: about 2 × the entity count).
func (c *EffectChurn) Stage(rec *deferral.Recorder) int {
	ops := 0
	for j := range c.ents {
		ops += c.StageEntity(rec, j)
	}
	c.EndFrame()
	return ops
}

// StageEntity stages this frame's change of ents[j] through rec, 1 to 3 commands, and returns
// how many. Staging one entity twice in a frame stages the same choice against the effects it
// was computed to hold after the first: do it only after a commit applied the first.
func (c *EffectChurn) StageEntity(rec *deferral.Recorder, j int) int {
	h := mix(mix(c.seed^mix(c.frame+0x3c6ef372fe94f82b)) ^ uint64(j))
	k := 1 + int(h%3)
	h = mix(h + 1)
	e, held := c.ents[j], c.held[j]
	var done uint8
	for range k {
		i := uint(h % Effects)
		h /= Effects
		for done&(1<<i) != 0 { // distinct effects: the next one not yet toggled
			i = (i + 1) % Effects
		}
		done |= 1 << i
		if held&(1<<i) != 0 {
			rec.Remove(e, effectID(i))
		} else {
			rec.Add(e, effectValue(i, h))
		}
		held ^= 1 << i
	}
	c.held[j] = held
	return k
}

// EndFrame ends the frame: the next StageEntity calls draw the next frame's choices.
func (c *EffectChurn) EndFrame() { c.frame++ }

// Len returns the number of entities the churn changes per frame.
func (c *EffectChurn) Len() int { return len(c.ents) }

// Held returns the effects ents[j] holds after the commits of the frames staged so far, as a
// bit set (bit i: effect i of Stunned, Burning, Rooted, Poisoned, Slowed, Shielded).
func (c *EffectChurn) Held(j int) uint8 { return c.held[j] }

// effectID is the id of effect i.
func effectID(i uint) ecs.ComponentID {
	switch i {
	case 0:
		return Stunned.ID()
	case 1:
		return Burning.ID()
	case 2:
		return Rooted.ID()
	case 3:
		return Poisoned.ID()
	case 4:
		return Slowed.ID()
	case 5:
		return Shielded.ID()
	}
	panic(fmt.Sprintf("workload: effect %d of %d", i, Effects))
}

// effectValue is a value of effect i drawn from h.
func effectValue(i uint, h uint64) ecs.Bundle {
	v := unit(mix(h))
	switch i {
	case 0:
		return Stunned.Value(Stun{})
	case 1:
		return Burning.Value(Burn{})
	case 2:
		return Rooted.Value(Root{})
	case 3:
		return Poisoned.Value(Poison{DPS: 1 + 9*v})
	case 4:
		return Slowed.Value(Slow{Factor: 0.2 + 0.6*v})
	case 5:
		return Shielded.Value(Shield{HP: 10 + 90*v})
	}
	panic(fmt.Sprintf("workload: effect %d of %d", i, Effects))
}
