package results

import (
	"runtime"
	"runtime/debug"
)

// version is the release this tree is; builds from git add the revision.
const version = "v0.1.0-dev"

// Version returns deferbench's version: the release, plus the VCS revision (and "+dirty")
// when the binary was built from a git checkout with -buildvcs.
func Version() string {
	v := version
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += "+" + rev
		if dirty {
			v += "-dirty"
		}
	}
	return v
}

// RunConfig returns the file-level configuration lines deferbench writes at the top of
// bench.txt, in order: goos, goarch, cpu, go, deferbench, then the environment's lines (host
// model, kernel, governor, …) as envLines gives them.
func RunConfig(cpu string, envLines [][2]string) []Config {
	cfg := []Config{
		{"goos", runtime.GOOS},
		{"goarch", runtime.GOARCH},
	}
	if cpu != "" && cpu != "unknown" {
		cfg = append(cfg, Config{"cpu", cpu})
	}
	cfg = append(cfg, Config{"go", runtime.Version()}, Config{"deferbench", Version()})
	for _, l := range envLines {
		cfg = append(cfg, Config{l[0], l[1]})
	}
	return cfg
}
