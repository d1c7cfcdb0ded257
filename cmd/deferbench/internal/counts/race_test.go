//go:build race

package counts_test

const raceEnabled = true
