package harness

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"golang.org/x/perf/benchfmt"
)

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
// and after it at their line numbers; a benchmark line that long is an error naming its line.
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
	bin := filepath.Join(dir, "bin")
	os.WriteFile(bin, []byte("\x7fELF\x00\x01a: b\nc: d\n\xff\xfe"), 0o644)
	if _, err := ReadResults(bin); !errors.Is(err, ErrNotResults) || errors.Is(err, ErrNoBenchmarks) {
		t.Errorf("ReadResults(binary) = %v; want ErrNotResults, not 'configuration lines only'", err)
	}
}

// TestPlotOddNames: benchmark names from the input that would make bad chart file names (a
// 300-byte name, "..", an empty scenario, unicode, a space-free shell metacharacter) still
// plot, every file inside the folder with a short, visible, portable name; deferbench's own
// chart names are kept.
func TestPlotOddNames(t *testing.T) {
	long := strings.Repeat("a", 300)
	var rs []*benchfmt.Result
	for _, sc := range []string{long, "..", "", "Ünï日本", "a$b;c", "Stage"} {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(sc + "/strategy=x-2"), Iters: 10, Values: []benchfmt.Value{{Value: 5, Unit: "ns/op"}}})
	}
	dir := t.TempDir()
	files, err := Plot(rs, dir)
	if err != nil {
		t.Fatalf("Plot: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		base := filepath.Base(f)
		if filepath.Dir(f) != dir || len(base) > 100 || strings.HasPrefix(base, ".") || seen[base] {
			t.Errorf("chart file %q: want a short, visible, distinct name inside %s", f, dir)
		}
		seen[base] = true
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	if !seen["Stage.svg"] {
		t.Errorf("Stage's chart is not Stage.svg: %v", files)
	}
	if len(files) != 12 {
		t.Errorf("%d files; want 12 (6 charts as SVG and PNG): %v", len(files), files)
	}
}

// TestCrossRatios: the order statistics crossRatios finds without listing the ratios are
// exactly those of the sorted list of every x/y, ties, zeros and extreme values included.
func TestCrossRatios(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n, m := 1+rng.IntN(12), 1+rng.IntN(12)
		draw := func(k int, zero bool) []float64 {
			xs := make([]float64, k)
			for i := range xs {
				switch rng.IntN(6) {
				case 0:
					xs[i] = float64(rng.IntN(3)) // ties
				case 1:
					xs[i] = math.Ldexp(1+rng.Float64(), rng.IntN(2000)-1000) // extremes
				default:
					xs[i] = 10 + rng.Float64()*100
				}
				if !zero && xs[i] == 0 {
					xs[i] = 1
				}
			}
			sort.Float64s(xs)
			return xs
		}
		xs, ys := draw(n, true), draw(m, false)
		var all []float64
		for _, x := range xs {
			for _, y := range ys {
				all = append(all, x/y)
			}
		}
		sort.Float64s(all)
		c := crossRatios{xs: xs, ys: ys}
		for k := range all {
			if got := c.kth(int64(k)); got != all[k] {
				t.Fatalf("trial %d: kth(%d) = %v; want %v (xs %v, ys %v)", trial, k, got, all[k], xs, ys)
			}
		}
		if got, want := c.median(), median(all); got != want {
			t.Fatalf("trial %d: median %v; want %v", trial, got, want)
		}
	}
}

// TestRatioOfLargeSamples: the unpaired ratio of two strategies with 60,000 samples each
// (3.6e9 cross ratios, 29 GB if listed) is computed in bounded memory.
func TestRatioOfLargeSamples(t *testing.T) {
	a, ref := make([]obs, 60_000), make([]obs, 60_000)
	for i := range a {
		a[i] = obs{v: 20 + float64(i%1000)/100, pos: 2 * i}
		ref[i] = obs{v: 10 + float64(i%997)/100, pos: 2*i + 1}
	}
	r, ok := ratioOf(a, ref)
	if !ok || !(r.unpaired.c > 1.5 && r.unpaired.c < 2.5) || !r.unpaired.ci || !(r.unpaired.lo <= r.unpaired.c && r.unpaired.c <= r.unpaired.hi) {
		t.Errorf("ratioOf(60,000 samples) = %+v, %v; want about 2 with an interval", r.unpaired, ok)
	}
}

// TestPlotTooManyScenarios: results of more scenarios than MaxChartScenarios (go test output
// of a large project) are refused at once, before plots/ is made, instead of drawing
// thousands of charts for minutes.
func TestPlotTooManyScenarios(t *testing.T) {
	var rs []*benchfmt.Result
	for i := range MaxChartScenarios + 1 {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name("S" + strconv.Itoa(i) + "/strategy=x-2"), Iters: 1, Values: []benchfmt.Value{{Value: 5, Unit: "ns/op"}}})
	}
	dir := filepath.Join(t.TempDir(), "plots")
	if _, err := Plot(rs, dir); !errors.Is(err, ErrTooManyCharts) || !strings.Contains(err.Error(), strconv.Itoa(MaxChartScenarios+1)+" scenarios") {
		t.Errorf("Plot(%d scenarios) = %v; want ErrTooManyCharts naming the count", MaxChartScenarios+1, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused Plot made %s (%v)", dir, err)
	}
}

// TestPlotTooManyProcs: a bound holds for charts drawn per GOMAXPROCS too: scenarios at
// more scenario and GOMAXPROCS pairs than 16×MaxChartScenarios are refused before drawing.
func TestPlotTooManyProcs(t *testing.T) {
	var rs []*benchfmt.Result
	for s := range 17 {
		for g := 1; g <= MaxChartScenarios; g++ {
			rs = append(rs, &benchfmt.Result{Name: benchfmt.Name("S" + strconv.Itoa(s) + "/strategy=x/producers=1-" + strconv.Itoa(g)), Iters: 1,
				Values: []benchfmt.Value{{Value: 5, Unit: "ns/op"}}})
		}
	}
	if _, err := Plot(rs, filepath.Join(t.TempDir(), "plots")); !errors.Is(err, ErrTooManyCharts) || !strings.Contains(err.Error(), "GOMAXPROCS pairs") {
		t.Errorf("Plot(17 scenarios at %d GOMAXPROCS) = %v; want ErrTooManyCharts", MaxChartScenarios, err)
	}
}

// TestPlotHugeValues: values near the float64 maximum (1.7e308 ns/op, valid in the format)
// made the chart's axes overflow and the PNG rasterizer spin for good; they are refused at
// once as ErrBadValue naming the benchmark, before plots/ is made.
func TestPlotHugeValues(t *testing.T) {
	rs := []*benchfmt.Result{
		{Name: benchfmt.Name("Stage/strategy=a/cmd=typed-2"), Iters: 1, Values: []benchfmt.Value{{Value: 1.7e308, Unit: "ns/op"}}},
		{Name: benchfmt.Name("Stage/strategy=b/cmd=typed-2"), Iters: 1, Values: []benchfmt.Value{{Value: 1.7e308, Unit: "ns/op"}}},
	}
	dir := filepath.Join(t.TempDir(), "plots")
	done := make(chan error, 1)
	go func() { _, err := Plot(rs, dir); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrBadValue) || !strings.Contains(err.Error(), "BenchmarkStage/strategy=a/cmd=typed-2") {
			t.Errorf("Plot(1.7e308 ns/op) = %v; want ErrBadValue naming the benchmark", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Plot(1.7e308 ns/op) still drawing after 30s")
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused Plot made %s (%v)", dir, err)
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
