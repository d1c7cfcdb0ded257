package envinfo

// cpuid executes the CPUID instruction with EAX = eax and ECX = ecx (cpuid_amd64.s).
func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func brandString() string {
	return brandName(func(eax uint32) (uint32, uint32, uint32, uint32) { return cpuid(eax, 0) })
}
