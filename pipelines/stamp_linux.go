//go:build linux

package pipelines

import (
	"io/fs"
	"syscall"
)

// statStamp adds what Linux's stat says beyond size and mtime to st: the
// status-change time (any write or metadata change moves it, and it
// cannot be set back) and the inode.
func statStamp(st *stamp, info fs.FileInfo) {
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		st.CtimeNs = sys.Ctim.Nano()
		st.Inode = sys.Ino
	}
}
