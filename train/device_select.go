package train

import (
	"io"
	"log/slog"
)

// SelectDevice parses the device name s ("cpu", "cuda" or "auto") and
// checks it against the linked libxgboost: it returns DeviceCPU or
// DeviceCUDA. A bad name is an error wrapping ErrDevice; cuda asked of a
// library without CUDA an error wrapping ErrNoCUDA (ResolveDevice); auto
// without CUDA is DeviceCPU after one Info line on log (nil: discard).
// The library is asked only for cuda and auto. It is the device choice of
// `mirage train` and of a study's models.
func SelectDevice(s string, log *slog.Logger) (Device, error) {
	d, err := ParseDevice(s)
	if err != nil {
		return 0, err
	}
	if d == DeviceCPU {
		return d, nil
	}
	lib, cuda, err := LibraryCUDA()
	if err != nil {
		return 0, err
	}
	r, fallback, err := ResolveDevice(d, lib, cuda)
	if err != nil {
		return 0, err
	}
	if fallback {
		if log == nil {
			log = slog.New(slog.NewTextHandler(io.Discard, nil))
		}
		log.Info("device auto: libxgboost has no CUDA, training on the CPU", "libxgboost", lib.String())
	}
	return r, nil
}
