package conformance

import "testing"

// runRows runs rows as the subtests of an extension suite (TestHandover, TestVersions,
// TestGraph): each on a fresh World and strategy from f, under the watchdog, with the suite's
// seed logged so that a failure can be replayed.
func runRows(t *testing.T, suite string, f Factory, rows []row) {
	t.Helper()
	if f == nil {
		t.Fatalf("conformance.%s: factory is nil", suite)
	}
	seed := suiteSeed()
	t.Logf("conformance.%s: seed %d (set %s=%d to replay)", suite, seed, SeedEnv, seed)
	var cs []check
	for _, r := range rows {
		if r.vary == 0 {
			cs = append(cs, check{name: r.name, fn: r.fn, v: defaultVariant})
			continue
		}
		cs = append(cs, expand(r.name, r.fn, r.vary)...)
	}
	for _, c := range onStorages(t, cs) {
		t.Run(c.name, func(t *testing.T) {
			t.Helper()
			runCheck(t, f, c, seed, Timeout)
		})
	}
}

// need returns x's strategy as an I; it fails the check when the strategy does not
// implement I.
func need[I any](x *fixture, suite string) I {
	x.Helper()
	i, ok := x.s.(I)
	if !ok {
		x.Fatalf("conformance.%s: strategy %q (%T) does not implement the interface the suite tests", suite, x.s.Name(), x.s)
	}
	return i
}
