// Package atomicfile writes files so that a crash never leaves half of one:
// the content goes to a temporary file in the same directory, is synced,
// and is renamed over the destination only when complete. Temporary names
// carry the writer's PID, so that the next writer of the same output
// removes those of a killed run (CreateTemp, MkdirTemp and so Write do,
// and RemoveStale); TryLock keeps two live writers off one output.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Write creates or replaces path with what write writes (mode 0644). The
// writer passed to write is buffered and hides Close, so libraries that
// close their sink (pqarrow does) cannot close the file early. On any
// error nothing is left behind and path is unchanged.
func Write(path string, write func(io.Writer) error) (err error) {
	tmp, err := CreateTemp(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = write(struct{ io.Writer }{bw}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = bw.Flush(); err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteFile is Write for content already in memory.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
