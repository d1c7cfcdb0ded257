package conformance

import (
	"os"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// StorageEnv is the environment variable that restricts the suite and the differential test
// to one World storage: "slots" or "archetypes". Unset, every row and every differential
// program runs on both, as subtests named storage=slots and storage=archetypes.
const StorageEnv = "DEFERBENCH_STORAGE"

// storages returns the storages the suite runs on (StorageEnv); it fails t on a value it does
// not know.
func storages(t testing.TB) []ecs.Storage {
	t.Helper()
	v := os.Getenv(StorageEnv)
	if v == "" {
		return []ecs.Storage{ecs.Slots, ecs.Archetypes}
	}
	s, err := ecs.ParseStorage(v)
	if err != nil {
		t.Fatalf("%s=%s: %v (or unset it to run both)", StorageEnv, v, err)
	}
	return []ecs.Storage{s}
}

// onStorages returns each check once per storage, its name ending in /storage=<name>.
func onStorages(t testing.TB, cs []check) []check {
	t.Helper()
	var out []check
	for _, c := range cs {
		for _, s := range storages(t) {
			out = append(out, check{name: c.name + "/storage=" + s.String(), fn: c.fn, v: c.v, storage: s, alone: c.alone})
		}
	}
	return out
}

// newWorld returns an empty World on the check's storage.
func (x *fixture) newWorld() *ecs.World { return ecs.NewWorld(ecs.WithStorage(x.store)) }
