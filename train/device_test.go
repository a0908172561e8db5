package train

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/train/xgboost"
)

func TestDeviceParams(t *testing.T) {
	p := func(kv ...string) []xgboost.Param {
		var out []xgboost.Param
		for i := 0; i < len(kv); i += 2 {
			out = append(out, xgboost.Param{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		d    Device
		v    xgboost.LibVersion
		want []xgboost.Param
	}{
		{DeviceCPU, xgboost.LibVersion{Major: 1, Minor: 7, Patch: 4}, p("tree_method", "hist")},
		{DeviceCUDA, xgboost.LibVersion{Major: 1, Minor: 7, Patch: 4}, p("tree_method", "gpu_hist", "gpu_id", "0")},
		{DeviceCPU, xgboost.LibVersion{Major: 2, Minor: 0, Patch: 3}, p("device", "cpu", "tree_method", "hist")},
		{DeviceCUDA, xgboost.LibVersion{Major: 2, Minor: 1, Patch: 0}, p("device", "cuda", "tree_method", "hist")},
		{DeviceCUDA, xgboost.LibVersion{Major: 3, Minor: 0, Patch: 0}, p("device", "cuda", "tree_method", "hist")},
	}
	for _, tt := range tests {
		if got := DeviceParams(tt.d, tt.v); !slices.Equal(got, tt.want) {
			t.Errorf("DeviceParams(%s, %s) = %v, want %v", tt.d, tt.v, got, tt.want)
		}
	}
}

func TestResolveDevice(t *testing.T) {
	v := xgboost.LibVersion{Major: 1, Minor: 7, Patch: 4}
	tests := []struct {
		d        Device
		cuda     bool
		want     Device
		fallback bool
	}{
		{DeviceCPU, false, DeviceCPU, false},
		{DeviceCPU, true, DeviceCPU, false},
		{DeviceCUDA, true, DeviceCUDA, false},
		{DeviceAuto, true, DeviceCUDA, false},
		{DeviceAuto, false, DeviceCPU, true},
	}
	for _, tt := range tests {
		got, fb, err := ResolveDevice(tt.d, v, tt.cuda)
		if err != nil || got != tt.want || fb != tt.fallback {
			t.Errorf("ResolveDevice(%s, cuda=%v) = %s, %v, %v; want %s, %v", tt.d, tt.cuda, got, fb, err, tt.want, tt.fallback)
		}
	}
	_, _, err := ResolveDevice(DeviceCUDA, v, false)
	if !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("cuda without CUDA: err = %v, want ErrNoCUDA", err)
	}
	for _, s := range []string{"1.7.4", "USE_CUDA false", "XGBOOST_PREFIX", "CGO_CFLAGS", "CGO_LDFLAGS", "-Wl,-rpath", "--device cpu"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error message lacks %q:\n%v", s, err)
		}
	}
	for _, s := range []string{"cpu", "cuda", "auto"} {
		d, err := ParseDevice(s)
		if err != nil || d.String() != s {
			t.Errorf("ParseDevice(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseDevice("gpu"); err == nil {
		t.Error("ParseDevice(gpu): no error")
	}
}

func TestSelectDevice(t *testing.T) {
	t.Run("CPU", func(t *testing.T) {
		if d, err := SelectDevice("cpu", nil); err != nil || d != DeviceCPU {
			t.Errorf("SelectDevice(cpu) = %s, %v; want cpu", d, err)
		}
	})
	t.Run("Auto", func(t *testing.T) {
		if d, err := SelectDevice("auto", nil); err != nil || d == DeviceAuto {
			t.Errorf("SelectDevice(auto) = %s, %v; want cpu or cuda", d, err)
		}
	})
	t.Run("ErrDevice", func(t *testing.T) {
		_, err := SelectDevice("gpu", nil)
		if !errors.Is(err, ErrDevice) || err.Error() != `device "gpu": want cpu, cuda or auto` {
			t.Errorf("SelectDevice(gpu): err = %v, want ErrDevice", err)
		}
	})
}
