package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatValue formats v, measured in unit, with three significant digits in human units:
// times (ns/op, *-ns, sec/op) as ns, µs, ms or s ("92.7 µs"); bytes (B/op, *-B/*) as B, KiB,
// MiB, GiB; efficiency as a plain number; other rates and counts with SI prefixes k, M, G
// ("50M").
func FormatValue(v float64, unit string) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprint(v)
	case UnitIsTime(unit):
		if unit == "sec/op" {
			v *= 1e9
		}
		return scaled(v, 1000, []string{" ns", " µs", " ms", " s"})
	case UnitIsBytes(unit):
		return scaled(v, 1024, []string{" B", " KiB", " MiB", " GiB", " TiB"})
	case unit == "efficiency":
		return Sig3(v, false)
	}
	return scaled(v, 1000, []string{"", "k", "M", "G", "T"})
}

// UnitIsTime reports whether u is a time: ns/op, sec/op, *-ns, ns/*.
func UnitIsTime(u string) bool {
	return u == "ns/op" || u == "sec/op" || strings.HasSuffix(u, "-ns") || strings.HasPrefix(u, "ns/")
}

// UnitIsBytes reports whether u is bytes: B/*, *-B/*.
func UnitIsBytes(u string) bool { return strings.HasPrefix(u, "B/") || strings.Contains(u, "-B/") }

// scaled divides v by step until it is below step (or the suffixes run out) and formats it
// with three significant digits and the suffix.
func scaled(v, step float64, suffixes []string) string {
	i := 0
	for i < len(suffixes)-1 && math.Abs(v) >= step {
		v /= step
		i++
	}
	s := Sig3(v, true)
	if i < len(suffixes)-1 && math.Abs(mustParse(s)) >= step { // rounded up to the next suffix
		v /= step
		i++
	}
	if i > 0 {
		s = Sig3(v, false)
	}
	return s + suffixes[i]
}

func mustParse(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// Sig3 formats v with three significant digits without an exponent for |v| ≥ 1e-9
// (92.7, 1.20, 0.250), at least 100 as an integer, and, when ints, a value that rounds to
// an integer as that integer (48.0002 → "48", not "48.0").
func Sig3(v float64, ints bool) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a < 1e-9 || a >= 1e6: // beyond the suffixes: 5e+299 s, not 300 digits
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 100 || (ints && v == math.Trunc(v)):
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	d := 2 - int(math.Floor(math.Log10(a)))
	s := strconv.FormatFloat(v, 'f', d, 64)
	if r := mustParse(s); ints && r == math.Trunc(r) { // 48.0002 B/op → "48"
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	if d > 0 && strings.Contains(s, ".") { // 9.996 → "10.00": keep three digits
		if r := mustParse(s); math.Abs(r) >= math.Pow(10, float64(3-d)) {
			s = strconv.FormatFloat(v, 'f', d-1, 64)
		}
	}
	return s
}

// FormatTick is FormatValue without trailing zeros: "0.5", "1.2 µs".
func FormatTick(v float64, unit string) string {
	s := FormatValue(v, unit)
	num, suffix := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789.-", r) }); i >= 0 {
		num, suffix = s[:i], s[i:]
	}
	if strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	return num + suffix
}

// FormatCount writes a whole-number parameter with SI prefixes ("1000000" → "1M"); other
// values unchanged.
func FormatCount(v string) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n != math.Trunc(n) || n < 1000 {
		return v
	}
	return FormatTick(n, "")
}

// FirstOf lists the first max of names, comma-separated, and says how many more there are:
// "a, b, c, … (4 more)".
func FirstOf(names []string, max int) string {
	s := strings.Join(names[:min(len(names), max)], ", ")
	if len(names) > max {
		s += fmt.Sprintf(", … (%d more)", len(names)-max)
	}
	return s
}

// Plural is "1 what" or "n whats".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
