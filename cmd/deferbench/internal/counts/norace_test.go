//go:build !race

package counts_test

const raceEnabled = false
