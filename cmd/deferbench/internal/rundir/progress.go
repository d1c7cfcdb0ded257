package rundir

import (
	"fmt"
	"io"
	"os"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows the run's progress on stderr: a bar with ETA on a terminal, one plain line
// per finished benchmark otherwise.
type progress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total}
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
	ns, _ := ev.Result.Value("ns/op")
	if ns == 0 {
		ns, _ = ev.Result.Value("sec/op")
		ns *= 1e9
	}
	fmt.Fprintf(p.w, "deferbench: [%d/%d] %s %.4g ns/op\n", ev.Done, ev.Total, ev.Name, ns)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
