package results

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"golang.org/x/perf/benchfmt"
)

func TestIgnoreProcs(t *testing.T) {
	old := append(sampleResults("Stage/strategy=a/cmd=typed-4", 1), sampleResults("Frame/strategy=a/entities=1000", 1)...)
	for _, suffix := range []string{"", "-4", "-8"} {
		old = append(old, sampleResults("Contention/strategy=a/producers=2"+suffix, 1)...)
	}
	new := append(sampleResults("Stage/strategy=a/cmd=typed-16", 1), sampleResults("Contention/strategy=a/producers=2-16", 1)...)
	kept := IgnoreProcs(old, new)
	if len(kept) != 1 || kept[0] != "Contention/strategy=a/producers=2" {
		t.Errorf("IgnoreProcs kept %q apart, want only the Contention benchmark run at three GOMAXPROCS", kept)
	}
	var got []string
	for _, r := range append(old, new...) {
		got = append(got, string(r.Name))
	}
	want := []string{"Stage/strategy=a/cmd=typed", "Frame/strategy=a/entities=1000",
		"Contention/strategy=a/producers=2", "Contention/strategy=a/producers=2-4", "Contention/strategy=a/producers=2-8",
		"Stage/strategy=a/cmd=typed", "Contention/strategy=a/producers=2-16"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("IgnoreProcs names:\n got %q\nwant %q", got, want)
	}
	// The GOMAXPROCS variants stay apart: one row each, never one pooled row.
	distinct := map[string]bool{}
	for _, r := range old {
		distinct[string(r.Name)] = true
	}
	if len(distinct) != 5 {
		t.Errorf("after IgnoreProcs: %d distinct names, want 5 (the three GOMAXPROCS apart)", len(distinct))
	}
}

func TestUnmatched(t *testing.T) {
	old := append(sampleResults("A-2", 1, 2), sampleResults("B-2", 1)...)
	new := append(sampleResults("B-2", 1), sampleResults("C-2", 1, 2)...)
	o, n := Unmatched(old, new)
	if strings.Join(o, ",") != "A-2" || strings.Join(n, ",") != "C-2" {
		t.Errorf("Unmatched = %q, %q; want [A-2], [C-2]", o, n)
	}
}

func TestPartial(t *testing.T) {
	rs := sampleResults("A-2", 1)
	if got := Partial(rs); got != "" {
		t.Errorf("Partial of a complete run = %q", got)
	}
	rs[0].Config = append(rs[0].Config, benchfmt.Config{Key: PartialKey, Value: []byte("true (1 of 9 benchmarks: interrupted)"), File: true})
	if got := Partial(rs); got != "true (1 of 9 benchmarks: interrupted)" {
		t.Errorf("Partial = %q", got)
	}
}

func TestReadResultsErrors(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	os.WriteFile(readme, []byte("# deferbench\n\nA benchmark.\n"), 0o644)
	if _, err := ReadResults(readme); !errors.Is(err, ErrNotResults) || !strings.Contains(err.Error(), readme) {
		t.Errorf("ReadResults(README.md) = %v; want ErrNotResults naming the file", err)
	}
	if _, err := ReadResults(filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadResults(missing) = %v; want fs.ErrNotExist", err)
	}
	if _, err := ReadResults(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadResults(directory without bench.txt) = %v; want fs.ErrNotExist", err)
	}
	os.WriteFile(filepath.Join(dir, "bench.txt"), []byte("goos: linux\nBenchmarkA-2 10 5 ns/op\n"), 0o644)
	if rs, err := ReadResults(dir); err != nil || len(rs) != 1 {
		t.Errorf("ReadResults(results directory) = %d results, %v; want 1", len(rs), err)
	}
}

// TestReadResultsEncodings: a bench.txt saved by a Windows editor (CRLF, a UTF-8 byte order
// mark) or by PowerShell's > (UTF-16 with a byte order mark) reads as the plain file does:
// the same names, units without "\r", and the first configuration key without the mark.
func TestReadResultsEncodings(t *testing.T) {
	const plain = "goos: linux\ngoarch: amd64\n\nBenchmarkA/strategy=x-2 10 5 ns/op 8 B/op\nBenchmarkA/strategy=x-2 10 6 ns/op 8 B/op\n"
	crlf := strings.ReplaceAll(plain, "\n", "\r\n")
	utf16le := func(s string, bom []byte, big bool) []byte {
		b := append([]byte{}, bom...)
		for _, u := range utf16.Encode([]rune(s)) {
			if big {
				b = append(b, byte(u>>8), byte(u))
			} else {
				b = append(b, byte(u), byte(u>>8))
			}
		}
		return b
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"plain", []byte(plain)},
		{"crlf", []byte(crlf)},
		{"utf8-bom", append([]byte{0xEF, 0xBB, 0xBF}, plain...)},
		{"utf8-bom-crlf", append([]byte{0xEF, 0xBB, 0xBF}, crlf...)},
		{"utf8-bom-no-config", append([]byte{0xEF, 0xBB, 0xBF}, "BenchmarkA/strategy=x-2 10 5 ns/op 8 B/op\n"...)},
		{"utf16le", utf16le(crlf, []byte{0xFF, 0xFE}, false)},
		{"utf16be", utf16le(plain, []byte{0xFE, 0xFF}, true)},
	} {
		p := filepath.Join(dir, c.name+".txt")
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := ReadResults(p)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := 2
		if c.name == "utf8-bom-no-config" {
			want = 1
		}
		if len(rs) != want {
			t.Errorf("%s: %d results; want %d", c.name, len(rs), want)
			continue
		}
		if got := string(rs[0].Name); got != "A/strategy=x-2" {
			t.Errorf("%s: name %q", c.name, got)
		}
		for _, v := range rs[0].Values {
			if v.Unit != "sec/op" && v.Unit != "B/op" {
				t.Errorf("%s: unit %q", c.name, v.Unit)
			}
		}
		if c.name == "utf8-bom-no-config" {
			continue
		}
		if got := rs[0].GetConfig("goos"); got != "linux" {
			t.Errorf("%s: goos = %q; want linux (config %v)", c.name, got, rs[0].Config)
		}
		if got := rs[1].GetConfig("goarch"); got != "amd64" {
			t.Errorf("%s: goarch = %q; want amd64", c.name, got)
		}
	}
}

// TestReadResultsNotRegular: a named pipe (with no writer), a character device or a
// directory where a file is expected is refused at once, naming what it is; reading one
// would block forever (a pipe, a terminal) or never end (/dev/zero).
func TestReadResultsNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	runDir := filepath.Join(dir, "run")
	os.Mkdir(runDir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(runDir, "bench.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	os.MkdirAll(filepath.Join(folder, "bench.txt"), 0o755)
	for _, c := range []struct {
		path, want string
		notRegular bool
	}{
		{fifo, "a named pipe (FIFO), not a regular file", true},
		{runDir, "a named pipe (FIFO), not a regular file", true},
		{"/dev/zero", "a character device, not a regular file", true},
		{"/dev/null", "a character device, not a regular file", true},
		{folder, "is a directory", false},
	} {
		if _, err := os.Stat(c.path); err != nil {
			continue // no /dev here
		}
		done := make(chan error, 1)
		go func() { _, err := ReadResults(c.path); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadResults(%s) still blocked after 10s", c.path)
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) || errors.Is(err, ErrNotRegular) != c.notRegular {
			t.Errorf("ReadResults(%s) = %v; want a *fs.PathError saying %q (ErrNotRegular: %v)", c.path, err, c.want, c.notRegular)
		}
	}
	if _, err := ReadFileLimited(fifo, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFileLimited(fifo) = %v; want ErrNotRegular", err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, 100), 0o644)
	if _, err := ReadFileLimited(big, 99); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFileLimited(100 bytes, max 99) = %v; want ErrTooLarge", err)
	}
	if b, err := ReadFileLimited(big, 100); err != nil || len(b) != 100 {
		t.Errorf("ReadFileLimited(100 bytes, max 100) = %d bytes, %v", len(b), err)
	}
}

// TestReadResultsNoBenchmarks: an empty file and one of configuration lines only (a run
// stopped before its first benchmark) are refused as holding no benchmark lines, saying which.
func TestReadResultsNoBenchmarks(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "the file is empty"},
		{"config-only", "goos: linux\r\ngoarch: amd64\r\npartial: true (run in progress)\r\n", "only configuration lines (3;"},
		{"bom-config-only", "\ufeffgoos: linux\n", "only configuration lines (1;"},
	} {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.data), 0o644)
		_, err := ReadResults(p)
		if !errors.Is(err, ErrNoBenchmarks) || !errors.Is(err, ErrNotResults) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: ReadResults = %v; want ErrNoBenchmarks naming the file and %q", c.name, err, c.want)
		}
	}
}

// TestReadResultsLongLogLine: go test output with a log line longer than the format reader's
// 64 KiB line limit (a test dumping its state) still reads, with the benchmark lines before
// and after it at their line numbers; a benchmark or configuration line that long is an error
// naming its line.
func TestReadResultsLongLogLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log.txt")
	long := "    x_test.go:12: " + strings.Repeat("state ", 30_000) // 180 KB
	os.WriteFile(p, []byte("goos: linux\nBenchmarkA-2 10 5 ns/op\n"+long+"\nBenchmarkA-2 10 6 ns/op\nBenchmarkB-2 10 x ns/op\n"), 0o644)
	_, err := ReadResults(p)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), p+":5:") {
		t.Errorf("ReadResults(log with a malformed line 5) = %v; want ErrMalformed at line 5 (line numbers kept past the long line)", err)
	}
	os.WriteFile(p, []byte("goos: linux\nBenchmarkA-2 10 5 ns/op\n"+long+"\r\nBenchmarkA-2 10 6 ns/op\n"+long), 0o644)
	rs, err := ReadResults(p)
	if err != nil || len(rs) != 2 || rs[1].GetConfig("goos") != "linux" {
		t.Errorf("ReadResults(log with 180 KB lines) = %d results, %v; want 2", len(rs), err)
	}
	os.WriteFile(p, []byte("BenchmarkA-2 10 5 ns/op\nBenchmarkB-2 10 "+strings.Repeat("1 u ", 20_000)+"\n"), 0o644)
	if _, err := ReadResults(p); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), p+":2: ") || !strings.Contains(err.Error(), "longer than 64 KiB") {
		t.Errorf("ReadResults(an 80 KB benchmark line) = %v; want ErrMalformed at line 2", err)
	}
	// A configuration line that long is refused too: blanked, it would leave the results
	// below it labelled with the key's earlier value (here pkg: a), or none.
	os.WriteFile(p, []byte("pkg: a\nBenchmarkA-2 10 5 ns/op\npkg: "+strings.Repeat("b", 70_000)+"\nBenchmarkA-2 10 6 ns/op\n"), 0o644)
	if _, err := ReadResults(p); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), p+":3: ") || !strings.Contains(err.Error(), "configuration line (pkg:) longer than 64 KiB") {
		t.Errorf("ReadResults(a 70 KB configuration line) = %v; want ErrMalformed at line 3 naming the key", err)
	}
	bin := filepath.Join(dir, "bin")
	os.WriteFile(bin, []byte("\x7fELF\x00\x01a: b\nc: d\n\xff\xfe"), 0o644)
	if _, err := ReadResults(bin); !errors.Is(err, ErrNotResults) || errors.Is(err, ErrNoBenchmarks) {
		t.Errorf("ReadResults(binary) = %v; want ErrNotResults, not 'configuration lines only'", err)
	}
}

// TestReadInputPipes: ReadInput reads a pipe to its end and parses it as a file, bounds it
// in bytes (ErrTooLarge past the limit), stops waiting for a named pipe's writer when its
// context ends, and still refuses a results directory whose bench.txt is a named pipe.
func TestReadInputPipes(t *testing.T) {
	const data = "goos: linux\nBenchmarkA-2 10 5 ns/op\nBenchmarkA-2 10 6 ns/op\n"
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString(data); w.Close() }()
	rs, err := ReadInput(context.Background(), "-", InputOptions{Stdin: r})
	r.Close()
	if err != nil || len(rs) != 2 || rs[0].GetConfig("goos") != "linux" {
		t.Errorf("ReadInput(-) = %d results, %v; want 2", len(rs), err)
	}

	br, bw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for { // ends when the read end is closed
			if _, err := bw.WriteString(data); err != nil {
				bw.Close()
				return
			}
		}
	}()
	_, err = readStream(context.Background(), br, "big", InputOptions{}, 1<<20)
	br.Close()
	if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "big: ") {
		t.Errorf("readStream(endless pipe, max 1 MiB) = %v; want ErrTooLarge naming the input", err)
	}

	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	noted := make(chan bool, 1)
	start := time.Now()
	_, err = ReadInput(ctx, fifo, InputOptions{WaitAfter: 50 * time.Millisecond, Waiting: func(noWriter bool) { noted <- noWriter }})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("ReadInput(FIFO without a writer) = %v after %v; want the context's error once it ends", err, time.Since(start))
	}
	select {
	case noWriter := <-noted:
		if !noWriter {
			t.Errorf("the waiting notice for a FIFO without a writer did not say there is no writer")
		}
	default:
		t.Errorf("no waiting notice for a FIFO that gave nothing")
	}

	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	syscall.Mkfifo(filepath.Join(run, "bench.txt"), 0o644)
	if _, err := ReadInput(context.Background(), run, InputOptions{}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadInput(results directory with a FIFO bench.txt) = %v; want ErrNotRegular", err)
	}
}

func TestReadResultsRefusesBadValues(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ line, want string }{
		{"BenchmarkX 100 NaN ns/op", "bench.txt:3: bad benchmark value: BenchmarkX has NaN ns/op"},
		{"BenchmarkX 100 +Inf ns/op", "bench.txt:3: bad benchmark value: BenchmarkX has +Inf ns/op"},
		{"BenchmarkX 100 10 ns/op -1 allocs/op", "bench.txt:3: bad benchmark value: BenchmarkX has -1 allocs/op"},
		{"BenchmarkX 0 10 ns/op", "bench.txt:3: bad benchmark value: BenchmarkX ran 0 iterations"},
		{"BenchmarkX -5 10 ns/op", "bench.txt:3: bad benchmark value: BenchmarkX ran -5 iterations"},
	} {
		p := filepath.Join(dir, "bench.txt")
		os.WriteFile(p, []byte("goos: linux\nBenchmarkX 100 10 ns/op\n"+c.line+"\n"), 0o644)
		_, err := ReadResults(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "want ") {
			t.Errorf("%q: error %v, want one containing %q", c.line, err, c.want)
		}
	}
	p := filepath.Join(dir, "long.txt")
	os.WriteFile(p, []byte("BenchmarkX 100 10 ns/op\nBenchmarkY 1 "+strings.Repeat("1 u ", 1<<15)+"\n"), 0o644)
	if _, err := ReadResults(p); err == nil || !strings.Contains(err.Error(), "longer than 64 KiB") {
		t.Errorf("a 128 KiB line: error %v", err)
	}
}

// sampleResults is one result of name per value in ns/op.
func sampleResults(name string, vals ...float64) []*benchfmt.Result {
	var rs []*benchfmt.Result
	for _, v := range vals {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: "ns/op"}}})
	}
	return rs
}

// TestReadResultsCutLastLine: a benchmark line the file ends inside (a run killed or a pipe
// closed while writing it: "… 288 B/op 2 all") is refused, or skipped with a note by
// ReadInput, instead of read as a result with a unit "all"; a whole file without a final
// newline after a configuration line still reads.
func TestReadResultsCutLastLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.txt")
	whole := "goos: linux\nBenchmarkA-2 10 5 ns/op 288 B/op 2 allocs/op\n"
	os.WriteFile(path, []byte(whole+"BenchmarkA-2 10 6 ns/op 288 B/op 2 all"), 0o644)
	_, err := ReadResults(path)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), path+":3:") || !strings.Contains(err.Error(), "no newline") {
		t.Errorf("ReadResults(cut last line) = %v; want ErrMalformed naming line 3 and the missing newline", err)
	}
	var skipped []Skipped
	rs, err := ReadInput(context.Background(), path, InputOptions{Skipped: func(s Skipped) { skipped = append(skipped, s) }})
	if err != nil || len(rs) != 1 || len(skipped) != 1 || skipped[0].Line != 3 {
		t.Errorf("ReadInput(cut last line) = %d results, %v, skipped %+v; want 1 result and line 3 skipped", len(rs), err, skipped)
	}
	for _, r := range rs {
		for _, v := range r.Values {
			if v.Unit == "all" {
				t.Errorf("ReadInput kept the cut line's unit %q", v.Unit)
			}
		}
	}
	os.WriteFile(path, []byte(whole+"pkg: x"), 0o644)
	if rs, err := ReadResults(path); err != nil || len(rs) != 1 {
		t.Errorf("ReadResults(no final newline after a config line) = %d results, %v; want 1", len(rs), err)
	}
}

// TestReadResultsCutAnywhereInLastLine: a file cut at any byte of its last benchmark line,
// inside the name ("BenchmarkPeer/strategy=ark/op=create-destroy/st") as well as inside the
// numbers, is refused by ReadResults and skipped with a note by ReadInput, never read as
// whole.
func TestReadResultsCutAnywhereInLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.txt")
	whole := "goos: linux\nBenchmarkA-2 10 5 ns/op 288 B/op 2 allocs/op\n"
	last := "BenchmarkPeer/strategy=ark/op=create-destroy/storage=slots-2 10 6 ns/op 288 B/op 2 allocs/op"
	for i := 1; i < len(last); i++ {
		os.WriteFile(path, []byte(whole+last[:i]), 0o644)
		if _, err := ReadResults(path); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), path+":3:") {
			t.Errorf("ReadResults(cut after %q) = %v; want ErrMalformed naming line 3", last[:i], err)
		}
		var skipped []Skipped
		rs, err := ReadInput(context.Background(), path, InputOptions{Skipped: func(s Skipped) { skipped = append(skipped, s) }})
		if err != nil || len(rs) != 1 || len(skipped) != 1 || skipped[0].Line != 3 {
			t.Errorf("ReadInput(cut after %q) = %d results, %v, skipped %+v; want 1 result and line 3 skipped", last[:i], len(rs), err, skipped)
		}
	}
}

// TestReadResultsShareHeader: the results under one header share one copy of its
// configuration (a 31-line header on 200,000 results used to be copied for each, GBs), a
// header that changes starts a new copy, and appending to one result's configuration leaves
// the others' alone.
func TestReadResultsShareHeader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bench.txt")
	os.WriteFile(p, []byte("goos: linux\ncpu: Some CPU   \nBenchmarkA-2 1 10 ns/op\nBenchmarkB-2 1 11 ns/op\ncpu: Other CPU\nBenchmarkA-2 1 12 ns/op\nBenchmarkB-2 1 13 ns/op\n"), 0o644)
	rs, err := ReadResults(p)
	if err != nil || len(rs) != 4 {
		t.Fatalf("ReadResults: %d results, %v", len(rs), err)
	}
	if &rs[0].Config[0] != &rs[1].Config[0] || &rs[2].Config[0] != &rs[3].Config[0] {
		t.Error("results under one header hold copies of it, want one shared")
	}
	if got := rs[1].GetConfig("cpu"); got != "Some CPU" {
		t.Errorf("cpu of the second result %q, want the trimmed %q", got, "Some CPU")
	}
	if rs[2].GetConfig("cpu") != "Other CPU" || SameConfig(rs[1].Config, rs[2].Config) {
		t.Errorf("after a changed header: cpu %q, shared %v", rs[2].GetConfig("cpu"), SameConfig(rs[1].Config, rs[2].Config))
	}
	if _, l := rs[1].Pos(); l != 4 || string(rs[1].Name) != "B-2" {
		t.Errorf("second result: %s at line %d, want B-2 at 4", rs[1].Name, l)
	}
	rs[0].Config = append(rs[0].Config, benchfmt.Config{Key: "extra", Value: []byte("x")})
	if rs[1].GetConfig("extra") != "" || len(rs[1].Config) != 2 {
		t.Errorf("appending to one result's configuration changed another's: %v", rs[1].Config)
	}
	// go test output that failed: every result is marked partial, and still shares its header.
	os.WriteFile(p, []byte("goos: linux\nBenchmarkA-2 1 10 ns/op\nBenchmarkB-2 1 11 ns/op\n--- FAIL: BenchmarkC-2\n"), 0o644)
	if rs, err = ReadResults(p); err != nil || len(rs) != 2 {
		t.Fatalf("ReadResults of failed output: %d results, %v", len(rs), err)
	}
	if Partial(rs[:1]) == "" || Partial(rs[1:]) == "" || &rs[0].Config[0] != &rs[1].Config[0] {
		t.Errorf("failed output: partial %q and %q, shared %v; want both marked, one header", Partial(rs[:1]), Partial(rs[1:]), &rs[0].Config[0] == &rs[1].Config[0])
	}
}
