package ecs

// MaxGeneration exports maxGeneration to the tests.
const MaxGeneration = maxGeneration

// SetNextGeneration sets the generation that free slot's next entity will carry, so the
// tests can reach generation retirement without 2^31 create/destroy cycles. It panics when
// slot is alive.
func SetNextGeneration(w *World, slot, gen uint32) {
	if w.liveGen[slot] != 0 {
		panic("SetNextGeneration on a live slot")
	}
	w.gens[slot] = gen
}
