//go:build !amd64

package envinfo

// brandString is "": only x86 has a CPUID brand string.
func brandString() string { return "" }
