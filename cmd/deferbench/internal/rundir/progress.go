package rundir

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows the run's progress on stderr: a bar with ETA on a terminal; otherwise (a
// CI log, a file) a plain line for the first result, then whenever another 5% of the results
// is done or progressEvery has passed since the last line, and for the last result, each
// with the time so far and an estimate of the time left: a full run's 2,230 results make
// about 20 lines, not 2,230.
type progress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int
	now   func() time.Time
	start time.Time
	last  time.Time // of the last line
	step  int       // the last 5% step a line was printed for

	// The benchmark running now, for the overrun line: its name, when it started, and the
	// results done before it. mu guards them and the writes (the ticker prints too).
	mu      sync.Mutex
	current string
	began   time.Time
	done    int
	warned  time.Time // of the last overrun line
	stop    chan struct{}
}

// progressEvery is the longest a run outside a terminal goes without a progress line.
const progressEvery = 10 * time.Second

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, now: time.Now}
	p.start = p.now()
	p.last = p.start
	p.stop = make(chan struct{})
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("deferbench run"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

func (p *progress) event(ev harness.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Stall != nil { // always printed, bar or not: the run goes on without it
		p.current = ""
		fmt.Fprintf(p.w, "\ndeferbench: [%d/%d] %s stalled: no progress for %v (bound %v); left behind, its later repetitions skipped, the run goes on\n",
			ev.Done+1, ev.Total, ev.Name, harness.StallRound(ev.Stall.After), harness.StallRound(ev.Stall.Bound))
		return
	}
	if ev.Result == nil {
		p.current, p.began, p.done = ev.Name, p.now(), ev.Done
	} else {
		p.current = ""
	}
	if p.bar != nil {
		if ev.Result == nil {
			p.bar.Describe(ev.Name)
		} else {
			p.bar.Add(1)
		}
		return
	}
	if ev.Result == nil {
		return
	}
	now := p.now()
	step := 0
	if ev.Total > 0 {
		step = 20 * ev.Done / ev.Total
	}
	if ev.Done != 1 && ev.Done != ev.Total && step == p.step && now.Sub(p.last) < progressEvery {
		return
	}
	p.last, p.step = now, step
	ns, _ := ev.Result.Value("ns/op")
	if ns == 0 {
		ns, _ = ev.Result.Value("sec/op")
		ns *= 1e9
	}
	elapsed := now.Sub(p.start)
	eta := ""
	if ev.Done > 0 && ev.Done < ev.Total {
		left := time.Duration(float64(elapsed) / float64(ev.Done) * float64(ev.Total-ev.Done))
		eta = fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	fmt.Fprintf(p.w, "deferbench: [%d/%d] %.0f%% %s %.4g ns/op; %s so far%s\n",
		ev.Done, ev.Total, 100*float64(ev.Done)/float64(max(ev.Total, 1)), ev.Name, ns, elapsed.Round(time.Second), eta)
}

// overrunAfter is how long past its share of the estimate (and at least overrunFloor) a
// benchmark runs before the progress says so.
const (
	overrunFactor = 3
	overrunFloor  = 5 * time.Second
)

// tick runs until finish, checking every progressEvery whether the running benchmark overran.
func (p *progress) tick() {
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.overrun()
		}
	}
}

// overrun says, at most once per progressEvery, that the running benchmark has run past
// overrunFactor times its share of the estimate (the time per result so far; before the
// first result, nothing is said) and at least overrunFloor: "Contention/… running 2m10s,
// planned 0.4s", in place of an estimate of the time left that a stuck benchmark would
// leave unchanged. It reports whether it printed.
func (p *progress) overrun() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == "" || p.done == 0 {
		return false
	}
	now := p.now()
	share := p.began.Sub(p.start) / time.Duration(p.done)
	running := now.Sub(p.began)
	if running < max(overrunFactor*share, overrunFloor) || now.Sub(p.warned) < progressEvery {
		return false
	}
	p.warned = now
	msg := fmt.Sprintf("%s running %s, planned %s", p.current, running.Round(time.Second), share.Round(time.Millisecond))
	if p.bar != nil {
		p.bar.Describe(msg)
		return true
	}
	fmt.Fprintf(p.w, "deferbench: [%d/%d] %s; %s so far\n", p.done+1, p.total, msg, now.Sub(p.start).Round(time.Second))
	return true
}

func (p *progress) finish() {
	close(p.stop)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
