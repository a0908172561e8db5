package train

import (
	"errors"
	"fmt"

	"github.com/mirage-hpc/mirage/train/xgboost"
)

// Device is where XGBoost trains.
type Device uint8

const (
	// DeviceCPU trains on the CPU (tree_method=hist).
	DeviceCPU Device = iota
	// DeviceCUDA trains on GPU 0; it needs a libxgboost built with CUDA.
	DeviceCUDA
	// DeviceAuto is DeviceCUDA when the linked library has CUDA, else DeviceCPU.
	DeviceAuto
)

// String returns "cpu", "cuda" or "auto".
func (d Device) String() string {
	switch d {
	case DeviceCUDA:
		return "cuda"
	case DeviceAuto:
		return "auto"
	}
	return "cpu"
}

// ErrDevice means a device name is none of cpu, cuda and auto. Its
// message is the list of the names.
var ErrDevice = errors.New("want cpu, cuda or auto")

// ParseDevice parses "cpu", "cuda" or "auto"; another name is an error
// wrapping ErrDevice.
func ParseDevice(s string) (Device, error) {
	switch s {
	case "cpu":
		return DeviceCPU, nil
	case "cuda":
		return DeviceCUDA, nil
	case "auto":
		return DeviceAuto, nil
	}
	return 0, fmt.Errorf("device %q: %w", s, ErrDevice)
}

// MarshalText implements encoding.TextMarshaler.
func (d Device) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Device) UnmarshalText(b []byte) error {
	v, err := ParseDevice(string(b))
	*d = v
	return err
}

// ErrNoCUDA means DeviceCUDA was asked of a libxgboost built without CUDA.
var ErrNoCUDA = errors.New("libxgboost has no CUDA")

// noCUDAHelp says how to link a CUDA build; it is part of ErrNoCUDA's message.
const noCUDAHelp = `link a CUDA build of XGBoost: install one (built with -DUSE_CUDA=ON, or a
release's lib/libxgboost.so with include/xgboost/c_api.h) under a prefix, then
  make build XGBOOST_PREFIX=/opt/xgboost-cuda
which runs go build with CGO_CFLAGS="-I$XGBOOST_PREFIX/include" and
CGO_LDFLAGS="-L$XGBOOST_PREFIX/lib -Wl,-rpath,$XGBOOST_PREFIX/lib" (export those two
yourself for a plain go build); or train with --device cpu or --device auto`

// ResolveDevice turns d into DeviceCPU or DeviceCUDA for a library with
// (cuda true) or without CUDA. DeviceCUDA without CUDA is an error
// wrapping ErrNoCUDA that explains how to link a CUDA build; DeviceAuto
// without CUDA is DeviceCPU with fallback true (the caller logs it).
func ResolveDevice(d Device, lib xgboost.LibVersion, cuda bool) (resolved Device, fallback bool, err error) {
	switch {
	case d == DeviceCPU:
		return DeviceCPU, false, nil
	case cuda:
		return DeviceCUDA, false, nil
	case d == DeviceAuto:
		return DeviceCPU, true, nil
	}
	return 0, false, fmt.Errorf("device cuda: %w (the linked libxgboost %s reports USE_CUDA false); %s", ErrNoCUDA, lib, noCUDAHelp)
}

// LibraryCUDA returns the linked library's version and whether its
// BuildInfo says USE_CUDA.
func LibraryCUDA() (xgboost.LibVersion, bool, error) {
	v, err := xgboost.Version()
	if err != nil {
		return v, false, err
	}
	info, err := xgboost.BuildInfo()
	if err != nil {
		return v, false, err
	}
	cuda, _ := info["USE_CUDA"].(bool)
	return v, cuda, nil
}

// DeviceParams returns the booster parameters selecting device d (CPU or
// CUDA, resolved) on library version v: 1.x uses tree_method=gpu_hist and
// gpu_id=0; 2.0 and later use device=cuda (or cpu) with tree_method=hist.
func DeviceParams(d Device, v xgboost.LibVersion) []xgboost.Param {
	if d != DeviceCUDA {
		if v.Major >= 2 {
			return []xgboost.Param{{Key: "device", Value: "cpu"}, {Key: "tree_method", Value: "hist"}}
		}
		return []xgboost.Param{{Key: "tree_method", Value: "hist"}}
	}
	if v.Major >= 2 {
		return []xgboost.Param{{Key: "device", Value: "cuda"}, {Key: "tree_method", Value: "hist"}}
	}
	return []xgboost.Param{{Key: "tree_method", Value: "gpu_hist"}, {Key: "gpu_id", Value: "0"}}
}
