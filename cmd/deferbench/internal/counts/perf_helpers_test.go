//go:build linux

package counts

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

var (
	errNoEnt  error = unix.ENOENT
	errAccess error = unix.EACCES
)

func mkdir(dir, name string) error { return os.Mkdir(filepath.Join(dir, name), 0o755) }
