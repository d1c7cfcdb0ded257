package counts

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The event sets a counting child can be asked for by name (EventSet).
const (
	HardwareSet = "hardware" // HardwareEvents: cycles, instructions, branch and cache misses
	SoftwareSet = "software" // SoftwareEvents: task-clock, page faults
)

// unavailableTag starts the line a child writes instead of counts when counters cannot be
// read: "unavailable\t<reason>\t<detail>".
const unavailableTag = "unavailable"

// exitUnavailable is the exit status of a child that could not open its counters.
const exitUnavailable = 3

// WritePerOp writes a child's counts, one "unit value" line per unit in sorted order, or, when
// err is an *Unavailable, the line that carries its reason and detail; it returns the exit
// status the child should end with: 0, 3 for unavailable counters, 1 for another error
// (which it does not write).
func WritePerOp(w io.Writer, p PerOp, err error) int {
	var u *Unavailable
	if errors.As(err, &u) {
		fmt.Fprintf(w, "%s\t%s\t%s\n", unavailableTag, u.Reason, strings.ReplaceAll(u.Detail, "\n", " "))
		return exitUnavailable
	}
	if err != nil {
		return 1
	}
	units := make([]string, 0, len(p))
	for u := range p {
		units = append(units, u)
	}
	sort.Strings(units)
	for _, u := range units {
		fmt.Fprintf(w, "%s %s\n", u, strconv.FormatFloat(p[u], 'g', -1, 64))
	}
	return 0
}

// ReadPerOp reads what WritePerOp wrote: the counts, or an *Unavailable.
func ReadPerOp(r io.Reader) (PerOp, error) {
	p := PerOp{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, unavailableTag+"\t"); ok {
			reason, detail, _ := strings.Cut(rest, "\t")
			return nil, &Unavailable{Reason: Reason(reason), Detail: detail}
		}
		u, v, ok := strings.Cut(line, " ")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !IsCountUnit(u) {
			return nil, fmt.Errorf("counting child wrote %q: want \"unit value\" with a count unit", line)
		}
		p[u] = x
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, errors.New("counting child wrote no counts")
	}
	return p, nil
}

// CountPerf runs argv, a child that counts one benchmark with perf_event_open (MeasureOps)
// and writes the result with WritePerOp, with ControlEnv's settings (gogc: its GOGC) and env,
// bounded by timeout (0: DefaultTimeout) and killed with its process group when it outlives
// it. It returns the counts per op, or the child's *Unavailable (counters cannot be read
// here: record the reason and carry on), or an error with the child's last line on stderr.
func CountPerf(ctx context.Context, argv, env []string, gogc string, timeout time.Duration) (PerOp, error) {
	var stdout, stderr bytes.Buffer
	var cpu time.Duration
	err := runBoundedOut(ctx, Options{Timeout: timeout}.limits(), argv[0], argv[1:], append(ControlEnv(gogc), env...), &stdout, &stderr, &cpu)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == exitUnavailable) {
		return nil, fmt.Errorf("counting child %s: %w%s", strings.Join(argv[1:], " "), err, lastLine(stderr.Bytes()))
	}
	return ReadPerOp(&stdout)
}
