package rundir

import (
	"fmt"
	"io"
	"os"
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
}

// progressEvery is the longest a run outside a terminal goes without a progress line.
const progressEvery = 10 * time.Second

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, now: time.Now}
	p.start = p.now()
	p.last = p.start
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

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
