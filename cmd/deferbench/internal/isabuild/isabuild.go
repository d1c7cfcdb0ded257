// Package isabuild provides the count children of the emulated instruction sets
// (counts.ISAs: pi4, pi5, pi4-32): deferbench cross-built for the ISA's GOARCH (and GOARM),
// which the count tier runs in its count-child mode under qemu-user. They are built from the
// source the counted code comes from, with the toolchain on PATH: CGO_ENABLED=0, -trimpath,
// -ldflags=-w (the symbol table stays: the left-out functions are found by name).
package isabuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/boundexec"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
)

// PrefixEnv names the environment variable that gives prebuilt count children: PREFIX, with
// the children at PREFIX-linux-arm64 and PREFIX-linux-arm (ChildPath). deferbench ab sets it
// for its rounds, to the children it built from each side's revision. Unset, deferbench run
// builds them from the source tree it is run in.
const PrefixEnv = "DEFERBENCH_ISA_CHILD"

// ChildPath is where the count child for isa lies beside prefix: prefix-linux-GOARCH
// (bin/deferbench-linux-arm64, as make cross names it; arm is GOARM=7).
func ChildPath(prefix string, isa counts.ISA) string {
	return prefix + "-linux-" + isa.GOARCH
}

// SourceRoot returns the deferbench repository that holds dir: the nearest directory at or
// above dir with a go.work and cmd/deferbench/main.go.
func SourceRoot(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if fileExists(filepath.Join(dir, "go.work")) && fileExists(filepath.Join(dir, "cmd", "deferbench", "main.go")) {
			return dir, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// buildTimeout bounds one cross build.
const buildTimeout = 20 * time.Minute

// Build cross-builds ./cmd/deferbench of the repository src for isa into out.
func Build(ctx context.Context, src, out string, isa counts.ISA) error {
	// In a process group of its own (boundexec), so that a run stopped at once kills the
	// build with the other children (boundexec.KillAll) instead of leaving it running.
	res, err := boundexec.Run(ctx, boundexec.Options{Timeout: buildTimeout, Dir: src, Combined: true,
		Env: []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + isa.GOARCH, "GOARM=" + isa.GOARM}},
		"go", "build", "-trimpath", "-ldflags=-w", "-o", out, "./cmd/deferbench")
	if err != nil {
		var cause error = err
		var be *boundexec.Error
		if errors.As(err, &be) {
			cause = be.Err
		}
		lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
		return fmt.Errorf("building the %s count child (GOARCH=%s) in %s: %v: %s", isa.Name, isa.GOARCH, src, cause, strings.Join(lines[max(0, len(lines)-3):], " | "))
	}
	return nil
}

// BuildAll builds the children of every emulated ISA of isas beside prefix (ChildPath), one
// per GOARCH, from the repository src.
func BuildAll(ctx context.Context, src, prefix string, isas []counts.ISA) error {
	done := map[string]bool{}
	for _, isa := range isas {
		p := ChildPath(prefix, isa)
		if isa.Host() || done[p] {
			continue
		}
		done[p] = true
		if err := Build(ctx, src, p, isa); err != nil {
			return err
		}
	}
	return nil
}

// Children returns the count child of every emulated ISA of isas, by ISA name, and a function
// that removes what it built. With PrefixEnv set they are the prebuilt ones it names, which
// must exist; otherwise they are built into a temporary directory from the repository that
// holds the working directory, with a note on stderr naming it. Without either it is a
// usage.Error saying what to do.
func Children(ctx context.Context, isas []counts.ISA, stderr io.Writer) (map[string]string, func(), error) {
	out := map[string]string{}
	none := func() {}
	var emulated []counts.ISA
	for _, isa := range isas {
		if !isa.Host() {
			emulated = append(emulated, isa)
		}
	}
	if len(emulated) == 0 {
		return out, none, nil
	}
	if prefix := os.Getenv(PrefixEnv); prefix != "" {
		for _, isa := range emulated {
			p := ChildPath(prefix, isa)
			if !fileExists(p) {
				return nil, none, usage.Errorf("run: -isa %s: %s=%s, but %s does not exist: build it with CGO_ENABLED=0 GOARCH=%s GOARM=%s go build -trimpath -ldflags=-w -o %s ./cmd/deferbench, or unset %s",
					isa.Name, PrefixEnv, prefix, p, isa.GOARCH, isa.GOARM, p, PrefixEnv)
			}
			out[isa.Name] = p
		}
		return out, none, nil
	}
	wd, _ := os.Getwd()
	src, ok := SourceRoot(wd)
	if !ok {
		return nil, none, usage.Errorf("run: -isa %s: the count child is cross-built from deferbench's source, and %s is in no deferbench repository: run deferbench inside a clone (with go on PATH), or set %s=PREFIX to prebuilt PREFIX-linux-arm64 and PREFIX-linux-arm",
			emulated[0].Name, wd, PrefixEnv)
	}
	if _, err := exec.LookPath("go"); err != nil {
		return nil, none, usage.Errorf("run: -isa %s: the count child is cross-built with go, which is not on PATH: install Go, or set %s=PREFIX to prebuilt children", emulated[0].Name, PrefixEnv)
	}
	// Registered for counts.RemoveTemps, so that a run stopped at once (SIGTERM, a second
	// interrupt) leaves no cross-built children behind.
	dir, err := counts.MakeTemp("", "deferbench-isa-")
	if err != nil {
		return nil, none, err
	}
	cleanup := func() { counts.RemoveTemp(dir) }
	prefix := filepath.Join(dir, "deferbench")
	fmt.Fprintf(stderr, "deferbench: cross-building the count child for %s from %s\n", names(emulated), src)
	if err := BuildAll(ctx, src, prefix, emulated); err != nil {
		cleanup()
		return nil, none, err
	}
	for _, isa := range emulated {
		out[isa.Name] = ChildPath(prefix, isa)
	}
	return out, cleanup, nil
}

func names(isas []counts.ISA) string {
	var ns []string
	for _, i := range isas {
		ns = append(ns, i.Name)
	}
	return strings.Join(ns, ", ")
}
