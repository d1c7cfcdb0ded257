package results

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
)

// ErrNotResults is why ReadResults refuses a file that holds no Go benchmark results.
var ErrNotResults = errors.New("not a Go benchmark results file")

var errIsDir = errors.New("is a directory")

// ErrNotRegular is why ReadResults refuses a path that is neither a regular file nor a
// directory (a named pipe, a device, a socket): reading one can block forever (a pipe with
// no writer, a terminal) or never end (/dev/zero). Its error is a *fs.PathError whose Err
// is ErrNotRegular (errors.Is) and reads "a named pipe (FIFO), not a regular file".
var ErrNotRegular = errors.New("not a regular file")

// ErrNoBenchmarks is why ReadResults refuses an empty file, or one of configuration lines
// only (the bench.txt of a run stopped before its first benchmark finished); such errors
// wrap ErrNotResults too.
var ErrNoBenchmarks = errors.New("no benchmark lines")

// configLines counts the lines of f, read again from its start, that are configuration
// lines of the benchmark format ("key: value", the key starting with a lower-case letter and
// holding no space or upper-case letter); 0 when f cannot be read again or is not text.
func configLines(f io.ReadSeeker) int {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	in, err := textReader(io.LimitReader(f, MaxResultsBytes))
	if err != nil {
		return 0
	}
	n := 0
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if !utf8.Valid(sc.Bytes()) || bytes.IndexByte(sc.Bytes(), 0) >= 0 {
			return 0 // binary: not a results file at all
		}
		if configStart(sc.Bytes()) {
			n++
		}
	}
	return n
}

// ErrMalformed is why ReadResults refuses a file with a benchmark line it cannot parse (a
// value without a unit, a number out of range, a line cut short), or with a line over 64 KiB
// that is a benchmark or configuration line.
var ErrMalformed = errors.New("malformed benchmark line")

// malformedConfig is the error of a configuration line ReadResults cannot take; it is
// ErrMalformed, without that error's words about benchmark lines.
type malformedConfig string

func (m malformedConfig) Error() string { return string(m) }
func (malformedConfig) Unwrap() error   { return ErrMalformed }

// notRegular is what a non-regular file is ("a named pipe (FIFO)"); it is ErrNotRegular.
type notRegular string

func (k notRegular) Error() string { return string(k) + ", not a regular file" }

func (k notRegular) Is(target error) bool { return target == ErrNotRegular }

// fileKind names what a non-regular file mode is, for an error message.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// OpenRegular opens path for reading when it is a regular file (after symbolic links), and
// otherwise fails without blocking: a directory is a *fs.PathError with "is a directory", a
// named pipe, device or socket a *fs.PathError wrapping ErrNotRegular. The file is opened
// non-blocking and checked again, so a path swapped for a pipe after the first check cannot
// block either.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	check := func(fi fs.FileInfo) error {
		switch {
		case fi.IsDir():
			return &fs.PathError{Op: "read", Path: path, Err: errIsDir}
		case !fi.Mode().IsRegular():
			return &fs.PathError{Op: "read", Path: path, Err: notRegular(fileKind(fi.Mode()))}
		}
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := check(fi); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = check(fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFileLimited reads the regular file path (see OpenRegular) whole, refusing one larger
// than max bytes with an error wrapping ErrTooLarge: for the small JSON files of a results
// directory, which no input may make unbounded.
func ReadFileLimited(path string, max int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than %d", path, ErrTooLarge, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return b, err
}

// textReader returns r as UTF-8 without a byte order mark: a UTF-8 BOM (Windows editors
// write one) is dropped, so that the first configuration key is not "\ufeffgoos"; a file
// in UTF-16 with its BOM (PowerShell's > writes that) is decoded. Line endings need nothing:
// the benchmark format reader takes CRLF as LF.
func textReader(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		br.Discard(3)
		return br, nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		b, err := io.ReadAll(br)
		if err != nil {
			return nil, err
		}
		order := binary.ByteOrder(binary.LittleEndian)
		if b[0] == 0xFE {
			order = binary.BigEndian
		}
		u := make([]uint16, 0, len(b)/2-1)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, order.Uint16(b[i:]))
		}
		return strings.NewReader(string(utf16.Decode(u))), nil
	}
	return br, nil
}

// lineGuard passes its input through line by line, blanking a line too long for the
// benchmark format reader (64 KiB) that is not a benchmark line, such as a test's log dump in
// go test output, which would otherwise end the reading of the whole file; line numbers stay.
// A benchmark line or a configuration line that long is an error wrapping ErrMalformed: left
// out, it would change the results it stands for.
type lineGuard struct {
	br   *bufio.Reader // of size bufio.MaxScanTokenSize
	path string
	line int
	buf  []byte // what is left of the current line
	err  error  // sticky: io.EOF or the reason to stop
	// cut is the number of the last line when it is a benchmark line the file ends
	// inside (no newline after it: cut short by a kill, a full disk or a closed pipe); 0
	// when there is none.
	cut int
	// failed is the first line that says the go test run failed ("--- FAIL:", "FAIL",
	// "panic:", "fatal error:"), with its number; "" when there is none.
	failed string
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.buf, g.err = g.next()
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// next returns the next line (valid until the following call) or, for one too long, a
// newline in its place.
func (g *lineGuard) next() ([]byte, error) {
	line, err := g.br.ReadSlice('\n')
	if len(line) > 0 {
		g.line++
		if errors.Is(err, io.EOF) && benchmarkStart(line) {
			g.cut = g.line
		}
		if failure(line) {
			if g.failed == "" {
				t := strings.TrimSpace(string(line))
				if len(t) > 80 {
					t = t[:77] + "..."
				}
				g.failed = fmt.Sprintf("%s:%d: %s", g.path, g.line, strings.ToValidUTF8(t, "?"))
			}
			if !bytes.HasPrefix(line, []byte("---")) && !bytes.HasPrefix(line, []byte("FAIL")) {
				// "panic: …" reads as a configuration line: it would set a key "panic" on
				// the results of a later package in the same file.
				return []byte("\n"), err
			}
		}
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	if bytes.HasPrefix(line, []byte("Benchmark")) {
		return nil, fmt.Errorf("%s:%d: %w: a benchmark line longer than %d KiB: correct or delete that line", g.path, g.line, ErrMalformed, bufio.MaxScanTokenSize>>10)
	}
	if configStart(line) {
		// Blanked, it would leave its key to the value before it, or to none: the
		// results below would be grouped and labelled as if it were not there.
		return nil, malformedConfig(fmt.Sprintf("%s:%d: a configuration line (%s:) longer than %d KiB: shorten its value or delete that line", g.path, g.line, configKey(line), bufio.MaxScanTokenSize>>10))
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = g.br.ReadSlice('\n')
	}
	return []byte("\n"), err
}

// configStart reports whether line begins as a configuration line of the Go benchmark
// format does: a key that begins with a lower-case letter and holds no space or upper-case
// letter, then a colon ("goos: linux").
func configStart(line []byte) bool {
	return configKey(line) != ""
}

// configKey returns the key of the configuration line that line begins, at most 40 bytes of
// it, or "" when line does not begin one (configStart).
func configKey(line []byte) string {
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if i == 0 && !unicode.IsLower(r) || unicode.IsSpace(r) || unicode.IsUpper(r) {
			return ""
		}
		if i > 0 && r == ':' {
			if i > 40 {
				return strings.ToValidUTF8(string(line[:37]), "") + "..."
			}
			return string(line[:i])
		}
		i += n
	}
	return ""
}

// failure reports whether line is one go test writes when a test or benchmark fails or the
// program crashes: "--- FAIL: BenchmarkX", "FAIL\tpkg\t0.1s" or "FAIL" alone, "panic: …",
// "fatal error: …".
func failure(line []byte) bool {
	t := bytes.TrimRight(line, "\r\n")
	if rest, ok := bytes.CutPrefix(t, []byte("FAIL")); ok {
		return len(rest) == 0 || rest[0] == '\t' || rest[0] == ' '
	}
	return bytes.HasPrefix(t, []byte("--- FAIL:")) || bytes.HasPrefix(t, []byte("panic: ")) ||
		bytes.HasPrefix(t, []byte("fatal error: "))
}

// FailedPrefix begins the PartialKey value that parsing gives results read from go test
// output that says the run failed.
const FailedPrefix = "go test failed at "

// benchmarkStart reports whether line, the file's last one without a newline, is a benchmark
// line or what is left of one cut inside its name ("Bench", "BenchmarkPeer/st").
func benchmarkStart(line []byte) bool {
	const b = "Benchmark"
	t := bytes.TrimRight(line, "\r")
	return bytes.HasPrefix(t, []byte(b)) || len(t) > 0 && bytes.HasPrefix([]byte(b), t)
}

// ReadResults reads every result of a Go benchmark format file: UTF-8 (with or without a
// byte order mark) or UTF-16 with one, LF or CRLF line endings. A results directory stands
// for its bench.txt. Errors name the file: a missing one (or a directory without bench.txt)
// wraps fs.ErrNotExist, one that is not a regular file (a named pipe, a device) is a
// *fs.PathError wrapping ErrNotRegular, a file without results wraps ErrNotResults (an empty
// file and one of configuration lines only also ErrNoBenchmarks), one with a malformed
// benchmark line ErrMalformed (its error names the file and line).
func ReadResults(path string) ([]*benchfmt.Result, error) { return readResults(path, nil) }

// ReadResultsCut is ReadResults that passes over a last line cut off inside it (no newline
// after it: a run killed, or a copy cut short, while the line was written), calling cut with
// its line number; any other malformed line is refused as ReadResults refuses it.
func ReadResultsCut(path string, cut func(line int)) ([]*benchfmt.Result, error) {
	other := false
	rs, err := readResults(path, func(s Skipped) {
		if s.Msg == cutMsg {
			cut(s.Line)
			return
		}
		other = true
	})
	if err == nil && other {
		return ReadResults(path) // the first malformed line's own error
	}
	return rs, err
}

// cutMsg is the Skipped.Msg of a last line cut off inside it.
const cutMsg = "the file ends inside it, no newline after it"

// readResults is ReadResults, skipping the lines that are not well-formed benchmark lines
// when skip is not nil (see InputOptions.Skipped).
func readResults(path string, skip func(Skipped)) ([]*benchfmt.Result, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "bench.txt")
	}
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > MaxResultsBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than %d MiB", path, ErrTooLarge, fi.Size(), MaxResultsBytes>>20)
	}
	return parseResults(f, fi.Size(), path, skip)
}

// Skipped is a line that ReadInput skipped (InputOptions.Skipped): one that begins like a
// benchmark line but is not a well-formed one, such as text a benchmark printed while it ran
// in go test -v output.
type Skipped struct {
	File string
	Line int
	Msg  string // the benchmark format reader's complaint: "parsing iteration count: invalid syntax"
}

// SkippedNotes words skipped lines as notes: the first max each with its file, line and
// the reader's complaint, then one line counting the rest; nil for none.
func SkippedNotes(sk []Skipped, max int) []string {
	var out []string
	for i, s := range sk {
		if i == max {
			out = append(out, fmt.Sprintf("%s: %d more lines skipped likewise", s.File, len(sk)-max))
			break
		}
		out = append(out, fmt.Sprintf("%s:%d: skipped, not a well-formed benchmark line (%s): text a benchmark printed while it ran (go test -v), or a line cut short", s.File, s.Line, s.Msg))
	}
	return out
}

// parseResults parses the size bytes of src, a results file named path in errors (a regular
// file, or the bytes read from a pipe), as ReadResults describes. With skip, a line the
// benchmark format reader finds malformed is passed to skip and the reading goes on, as the
// reader itself does; only a file with no well-formed result is refused for it.
func parseResults(src io.ReadSeeker, size int64, path string, skip func(Skipped)) ([]*benchfmt.Result, error) {
	if size == 0 {
		return nil, fmt.Errorf("%s: %w, %w: the file is empty", path, ErrNotResults, ErrNoBenchmarks)
	}
	in, err := textReader(io.LimitReader(src, MaxResultsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var rs []*benchfmt.Result
	var firstBad error // the first malformed line, when skipped
	// The first malformed line that is not a cut last line: its number and why. Before the
	// first well-formed result it is held, not refused at once: an input with no result at
	// all is not a results file.
	var firstBadLine int
	var firstBadMsg string
	counted := false // a malformed line had an iteration count: a benchmark line gone wrong
	cutBad := func(ln int) error {
		bad := fmt.Errorf("%s:%d: %w: the file ends inside it (no newline after it: a run or a pipe cut off while writing?): end it with a newline if it is whole, or delete it", path, ln, ErrMalformed)
		if skip == nil {
			return bad
		}
		if firstBad == nil {
			firstBad = bad
		}
		skip(Skipped{path, ln, cutMsg})
		return nil
	}
	cutMet := false // the cut last line came out as a result or a syntax error
	guard := &lineGuard{br: bufio.NewReaderSize(in, bufio.MaxScanTokenSize), path: path}
	r := benchfmt.NewReader(guard, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			// The scanner hands out the last line only after the guard met the end of
			// the file, so guard.cut is known by then.
			if _, ln := rec.Pos(); guard.cut != 0 && ln == guard.cut {
				cutMet = true
				if err := cutBad(ln); err != nil {
					return nil, err
				}
				continue
			}
			if err := CheckResult(rec); err != nil {
				return nil, err
			}
			if len(rs) == MaxResults {
				return nil, fmt.Errorf("%s: %w: more than %d benchmark lines", path, ErrTooLarge, MaxResults)
			}
			if n := len(rs); n > 0 && sameTrimmed(rs[n-1].Config, rec.Config) {
				// One copy of a header for all the results under it (a 31-line header
				// cloned for each of 200,000 results took GBs). Clipped, so that appending
				// to one result's configuration copies it first.
				cfg := rec.Config
				rec.Config = nil
				c := rec.Clone()
				rec.Config = cfg // the reader's own, for the lines after
				c.Config = rs[n-1].Config
				rec = c
			} else {
				rec = rec.Clone()
				trimConfig(rec)
				rec.Config = slices.Clip(rec.Config)
			}
			rs = append(rs, rec)
		case *benchfmt.SyntaxError:
			if guard.cut != 0 && rec.Line == guard.cut {
				cutMet = true
				if err := cutBad(rec.Line); err != nil {
					return nil, err
				}
				continue
			}
			bad := fmt.Errorf("%s:%d: %w: %s: correct or delete that line", rec.FileName, rec.Line, ErrMalformed, rec.Msg)
			if skip == nil && len(rs) > 0 {
				return nil, bad
			}
			if firstBad == nil {
				firstBad, firstBadLine, firstBadMsg = bad, rec.Line, rec.Msg
			}
			counted = counted || !strings.HasPrefix(rec.Msg, "parsing iteration count")
			if skip != nil {
				skip(Skipped{rec.FileName, rec.Line, rec.Msg})
			}
		}
	}
	// A line cut inside its name ("BenchmarkPeer/st", "Bench") is neither a result nor a
	// syntax error to the benchmark format reader, which passes over it silently.
	if guard.cut != 0 && !cutMet {
		if err := cutBad(guard.cut); err != nil {
			return nil, err
		}
	}
	if len(rs) == 0 && firstBadLine > 0 && !counted {
		// Not one result, nor a line with an iteration count after its name: prose that
		// starts a line with "Benchmark" (a README), not results with a bad line.
		return nil, fmt.Errorf("%s: %w (line %d starts like a benchmark line but is not one: %s)", path, ErrNotResults, firstBadLine, firstBadMsg)
	}
	if len(rs) == 0 && firstBad != nil {
		return nil, firstBad
	}
	if skip == nil && firstBad != nil {
		return nil, firstBad // a malformed line before the first result
	}
	if guard.err != nil && !errors.Is(guard.err, io.EOF) {
		return nil, guard.err
	}
	if err := r.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s: %w (a line longer than %d KiB after line %d)", path, ErrNotResults, bufio.MaxScanTokenSize>>10, lineCount(rs))
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if guard.failed != "" && len(rs) > 0 && Partial(rs) == "" {
		// A run that failed is incomplete, whatever it printed before failing: it reads as
		// a partial run (notes, and no gate passes on it).
		v := []byte(FailedPrefix + guard.failed)
		var was, now []benchfmt.Config // the results under one header keep sharing it
		for _, r := range rs {
			if len(r.Config) == 0 || len(was) == 0 || &r.Config[0] != &was[0] {
				was = r.Config
				now = slices.Clip(append(slices.Clip(r.Config), benchfmt.Config{Key: PartialKey, Value: v, File: true}))
			}
			r.Config = now
		}
	}
	if len(rs) == 0 {
		if n := configLines(src); n > 0 {
			return nil, fmt.Errorf("%s: %w, %w: only configuration lines (%d; a run stopped before its first benchmark finished?)", path, ErrNotResults, ErrNoBenchmarks, n)
		}
		return nil, fmt.Errorf("%s: %w (no benchmark lines)", path, ErrNotResults)
	}
	return rs, nil
}

// SameConfig reports whether a and b hold the same configuration lines, key, value and
// file-level flag alike, in the same order.
func SameConfig(a, b []benchfmt.Config) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].File != b[i].File || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// sameTrimmed reports whether raw, a configuration as read, is trimmed (trimConfig) what
// SameConfig would find the same as trimmed.
func sameTrimmed(trimmed, raw []benchfmt.Config) bool {
	if len(trimmed) != len(raw) {
		return false
	}
	for i := range raw {
		v := raw[i].Value
		if raw[i].File {
			v = bytes.TrimRight(v, " \t")
		}
		if trimmed[i].Key != raw[i].Key || trimmed[i].File != raw[i].File || !bytes.Equal(trimmed[i].Value, v) {
			return false
		}
	}
	return true
}

// trimConfig cuts trailing blanks from rec's file-level configuration values: go test pads
// some CPU brand strings ("cpu: … Processor        "), and an editor or a copy that strips
// trailing blanks from a saved file must not make it a different machine.
func trimConfig(rec *benchfmt.Result) {
	for i := range rec.Config {
		if c := &rec.Config[i]; c.File {
			c.Value = bytes.TrimRight(c.Value, " \t")
		}
	}
}
