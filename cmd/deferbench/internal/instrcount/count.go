package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
)

// countMain is instrcount -count: args are the flags and workload names after -count. It
// prints a header and one line per workload, "NAME instr/op", in the order named, and returns
// the exit status.
func countMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("instrcount -count", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n1 := fs.Int("n1", 400000, "the lower operation count")
	n2 := fs.Int("n2", 800000, "the higher operation count")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *n1 < 1 || *n2 <= *n1 {
		fmt.Fprintf(stderr, "instrcount: -n1 %d -n2 %d: want whole numbers with 1 ≤ n1 < n2\n", *n1, *n2)
		return 2
	}
	names := fs.Args()
	if len(names) == 0 {
		for n := range workloads {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	for _, n := range names {
		if _, ok := workloads[n]; !ok {
			fmt.Fprintf(stderr, "instrcount: unknown workload %q: instrcount -list names them\n", n)
			return 2
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "instrcount: %v\n", err)
		return 1
	}
	if _, err := counts.LookValgrind(""); err != nil {
		fmt.Fprintf(stderr, "instrcount: %v\n", err)
		return 1
	}
	children := make([]counts.Child, len(names))
	for i, name := range names {
		children[i] = counts.Child{
			Name: name, Low: *n1, High: *n2,
			Argv: func(n int) []string { return []string{exe, name, strconv.Itoa(n)} },
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rows := make([]*counts.Row, len(names))
	errs := make([]error, len(names))
	next := 0
	fmt.Fprintf(stdout, "%-24s %12s\n", "workload", "instr/op")
	status := 0
	err = counts.CountAll(ctx, children, counts.Options{MinDelta: -1}, 0, func(i int, r counts.Row, err error) {
		rows[i], errs[i] = &r, err
		for ; next < len(rows) && rows[next] != nil; next++ {
			if err := errs[next]; err != nil {
				fmt.Fprintf(stderr, "instrcount: %v\n", err)
				status = 1
				continue
			}
			m, _ := rows[next].Get(counts.InstrUnit)
			fmt.Fprintf(stdout, "%-24s %12.1f\n", rows[next].Name, m.Median)
		}
	})
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "instrcount: interrupted")
		return 130
	case err != nil:
		fmt.Fprintf(stderr, "instrcount: %v\n", err)
		return 1
	}
	return status
}
