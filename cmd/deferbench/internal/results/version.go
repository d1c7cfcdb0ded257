package results

import (
	"runtime"
	"runtime/debug"
)

// version is the release this tree is.
const version = "v0.1.0-dev"

// revision is the git revision the binary was built from, set by the Makefile's build
// (-ldflags -X): go build stamps none in a workspace (go.work), which this repository is.
var revision string

// Version returns deferbench's version: the release. It goes into bench.txt's deferbench
// line, which benchstat groups tables by, so it carries no revision: two builds of one
// release compare row by row.
func Version() string { return version }

// Revision returns the git revision the binary was built from ("-dirty" appended when the
// tree had changes), from the Makefile's build or, failing that, the VCS stamp of go build
// (-buildvcs); "" when neither is known (go run, a workspace build without the Makefile).
func Revision() string {
	if revision != "" {
		return revision
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
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
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
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
