package results

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/sys/unix"
)

// StdinName is the name ReadInput gives standard input (the path "-") in its errors.
const StdinName = "stdin"

// InputOptions says how ReadInput treats an input that is a pipe.
type InputOptions struct {
	// Stdin is what the path "-" reads (os.Stdin); nil makes "-" an ordinary file name.
	Stdin *os.File
	// Waiting, if not nil, is called once, from another goroutine and before ReadInput
	// returns, when nothing has been read from a pipe WaitAfter after the read began; noWriter
	// says that no program has the pipe open for writing yet (a named pipe whose writer has
	// not started). The read goes on waiting: a benchmark run may take minutes to write.
	Waiting   func(noWriter bool)
	WaitAfter time.Duration
}

// ReadInput reads the results of one command-line input as ReadResults does, and also the
// inputs that are pipes, as benchstat reads them: "-" is opt.Stdin (go test -bench . |
// deferbench compare - new.txt), and a pipe or named pipe (FIFO) path, such as the /dev/fd/N
// path of a shell's process substitution <(go test -bench .), is read to its end. A pipe is
// read whole into memory, at most MaxResultsBytes bytes (more is an error wrapping
// ErrTooLarge, as for a file), and then parsed. A named pipe is opened without blocking, so
// that one with no writer yet is waited for with opt.Waiting's notice instead of blocking
// silently in the open; reading one stops with ctx. A writer that opens it and closes it
// without writing makes an empty input. A character device (a terminal, /dev/zero), block
// device or socket, and a directory's bench.txt that is not a regular file, are refused
// without being opened or read: a *fs.PathError wrapping ErrNotRegular.
func ReadInput(ctx context.Context, path string, opt InputOptions) ([]*benchfmt.Result, error) {
	if path == "-" && opt.Stdin != nil {
		fi, err := opt.Stdin.Stat()
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: StdinName, Err: err}
		}
		if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeNamedPipe == 0 {
			return nil, &fs.PathError{Op: "read", Path: StdinName, Err: notRegular(fileKind(fi.Mode()))}
		}
		if fi.Mode().IsRegular() && fi.Size() > MaxResultsBytes {
			return nil, fmt.Errorf("%s: %w: %d bytes, more than %d MiB", StdinName, ErrTooLarge, fi.Size(), MaxResultsBytes>>20)
		}
		return readStream(ctx, opt.Stdin, StdinName, opt, MaxResultsBytes)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return ReadResults(path) // a file, a results directory, or refused
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeNamedPipe == 0 { // swapped since the Stat
		return nil, &fs.PathError{Op: "read", Path: path, Err: notRegular(fileKind(fi.Mode()))}
	}
	return readStream(ctx, f, path, opt, MaxResultsBytes)
}

// readStream reads f (a pipe or a file) to its end, at most max bytes, and parses what it
// read as the results file name.
func readStream(ctx context.Context, f *os.File, name string, opt InputOptions, max int64) ([]*benchfmt.Result, error) {
	data, err := readPipe(ctx, f, name, opt, max)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: %w, %w: nothing was written to it (did the command writing it fail?)", name, ErrNotResults, ErrNoBenchmarks)
	}
	return parseResults(bytes.NewReader(data), int64(len(data)), name)
}

// readPipe reads f to its end, at most max bytes (more is ErrTooLarge), waiting for a writer
// while none has opened f (a named pipe opened without blocking reads 0 bytes until one
// does) and calling opt.Waiting once when nothing came within opt.WaitAfter.
func readPipe(ctx context.Context, f *os.File, name string, opt InputOptions, max int64) ([]byte, error) {
	var got, noWriter atomic.Bool
	if opt.Waiting != nil {
		var mu sync.Mutex // orders the notice before readPipe's return
		done := false
		t := time.AfterFunc(opt.WaitAfter, func() {
			mu.Lock()
			defer mu.Unlock()
			if !done && !got.Load() {
				opt.Waiting(noWriter.Load())
			}
		})
		defer func() {
			t.Stop()
			mu.Lock()
			done = true
			mu.Unlock()
		}()
	}
	// A pipe the runtime polls unblocks at the deadline; a blocking one (a terminal's
	// standard input redirected from a pipe by the shell) ends with its writer.
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	buf := make([]byte, 0, min(64<<10, max+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, fmt.Errorf("%s: %w: more than %d MiB", name, ErrTooLarge, max>>20)
			}
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), max+1))
			copy(grown, buf)
			buf = grown
		}
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			for {
				n, rerr = syscall.Read(int(fd), buf[len(buf):cap(buf)])
				if rerr != syscall.EINTR {
					break
				}
			}
			switch {
			case rerr == syscall.EAGAIN: // a writer, nothing written yet
				noWriter.Store(false)
				return false
			case rerr != nil || n > 0:
				return true
			case got.Load() || hungUp(fd):
				return true // the end: every writer closed it
			}
			noWriter.Store(true) // a named pipe no writer has opened yet
			return false
		})
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, fmt.Errorf("%s: %w", name, ctx.Err())
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		case rerr != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: rerr}
		case n == 0:
			return buf, nil
		}
		got.Store(true)
		buf = buf[:len(buf)+n]
	}
}

// hungUp reports whether the pipe fd reads 0 bytes because its writers have closed it, not
// because none has opened it yet: the kernel reports POLLHUP on a named pipe opened without
// blocking only once a writer has come and gone.
func hungUp(fd uintptr) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(p, 0)
		if !errors.Is(err, unix.EINTR) {
			return err != nil || p[0].Revents&unix.POLLHUP != 0
		}
	}
}
