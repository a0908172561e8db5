//go:build cgo && !noxgboost

package xgboost

/*
#cgo LDFLAGS: -lxgboost
#include <stdlib.h>
#include <xgboost/c_api.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// Available reports whether libxgboost is linked.
const Available = true

// lastError wraps XGBGetLastError with the operation name. The caller must
// have locked its OS thread since the failed call: the message is
// thread-local.
func lastError(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	msg := C.GoString(C.XGBGetLastError())
	return fmt.Errorf("xgboost %s: %s", op, strings.TrimSpace(msg))
}

// Version returns the version of the linked libxgboost.
func Version() (LibVersion, error) {
	var major, minor, patch C.int
	C.XGBoostVersion(&major, &minor, &patch)
	return LibVersion{int(major), int(minor), int(patch)}, nil
}

// BuildInfo returns XGBuildInfo's JSON decoded (keys such as USE_CUDA,
// USE_OPENMP, COMPILER, and BUILTIN_PREFETCH_PRESENT).
func BuildInfo() (map[string]any, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out *C.char
	if err := lastError("build info", C.XGBuildInfo(&out)); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(C.GoString(out)), &m); err != nil {
		return nil, fmt.Errorf("xgboost build info: %w", err)
	}
	return m, nil
}

// DMatrix is XGBoost's data matrix.
type DMatrix struct {
	h       C.DMatrixHandle
	nrow    int
	cleanup runtime.Cleanup
}

// NewDMatrix copies a dense nrow x ncol float32 matrix in the given layout
// into a new DMatrix; NaN marks a missing value. It panics if len(data) is
// not nrow*ncol.
func NewDMatrix(data []float32, nrow, ncol int, layout Layout) (*DMatrix, error) {
	if len(data) != nrow*ncol {
		panic(fmt.Sprintf("xgboost: NewDMatrix: len(data) = %d, want %d x %d", len(data), nrow, ncol))
	}
	if nrow == 0 || ncol == 0 {
		return nil, fmt.Errorf("xgboost create dmatrix: empty matrix (%d x %d)", nrow, ncol)
	}
	rows := data
	if layout == LayoutColMajor {
		rows = make([]float32, len(data))
		for j := range ncol {
			col := data[j*nrow : (j+1)*nrow]
			for i, v := range col {
				rows[i*ncol+j] = v
			}
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var h C.DMatrixHandle
	rc := C.XGDMatrixCreateFromMat((*C.float)(unsafe.Pointer(&rows[0])), C.bst_ulong(nrow), C.bst_ulong(ncol),
		C.float(nan32()), &h)
	if err := lastError("create dmatrix", rc); err != nil {
		return nil, err
	}
	d := &DMatrix{h: h, nrow: nrow}
	d.cleanup = runtime.AddCleanup(d, func(h C.DMatrixHandle) { C.XGDMatrixFree(h) }, h)
	return d, nil
}

func nan32() float32 {
	var z float32
	return z / z
}

func (d *DMatrix) setFloat(field string, v []float32) error {
	if d == nil || d.h == nil {
		return ErrClosed
	}
	if len(v) != d.nrow {
		return fmt.Errorf("xgboost set %s: %d values for %d rows", field, len(v), d.nrow)
	}
	cf := C.CString(field)
	defer C.free(unsafe.Pointer(cf))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGDMatrixSetFloatInfo(d.h, cf, (*C.float)(unsafe.Pointer(&v[0])), C.bst_ulong(len(v)))
	runtime.KeepAlive(d)
	return lastError("set "+field, rc)
}

// SetLabels sets the label of each row; len(y) must equal the row count.
func (d *DMatrix) SetLabels(y []float32) error { return d.setFloat("label", y) }

// SetWeights sets the weight of each row; len(w) must equal the row count.
func (d *DMatrix) SetWeights(w []float32) error { return d.setFloat("weight", w) }

// Rows returns the number of rows.
func (d *DMatrix) Rows() (int, error) {
	if d == nil || d.h == nil {
		return 0, ErrClosed
	}
	return d.nrow, nil
}

// Close frees the matrix. It is safe to call more than once.
func (d *DMatrix) Close() error {
	if d == nil || d.h == nil {
		return nil
	}
	d.cleanup.Stop()
	rc := C.XGDMatrixFree(d.h)
	d.h = nil
	if rc != 0 {
		return errors.New("xgboost free dmatrix failed")
	}
	return nil
}

// Booster is an XGBoost model.
type Booster struct {
	h       C.BoosterHandle
	cleanup runtime.Cleanup
}

// NewBooster creates a booster; cache lists the matrices it will train or
// evaluate on (may be empty for a booster that only loads a model).
func NewBooster(cache ...*DMatrix) (*Booster, error) {
	hs := make([]C.DMatrixHandle, len(cache))
	for i, d := range cache {
		if d == nil || d.h == nil {
			return nil, ErrClosed
		}
		hs[i] = d.h
	}
	var p *C.DMatrixHandle
	if len(hs) > 0 {
		p = &hs[0]
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var h C.BoosterHandle
	rc := C.XGBoosterCreate(p, C.bst_ulong(len(hs)), &h)
	runtime.KeepAlive(cache)
	if err := lastError("create booster", rc); err != nil {
		return nil, err
	}
	b := &Booster{h: h}
	b.cleanup = runtime.AddCleanup(b, func(h C.BoosterHandle) { C.XGBoosterFree(h) }, h)
	return b, nil
}

// LoadBooster creates a booster from a saved model (JSON or UBJSON).
func LoadBooster(model []byte) (*Booster, error) {
	b, err := NewBooster()
	if err != nil {
		return nil, err
	}
	if err := b.Load(model); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// SetParam sets one parameter, such as "max_depth" = "6".
func (b *Booster) SetParam(key, value string) error {
	if b == nil || b.h == nil {
		return ErrClosed
	}
	ck, cv := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(ck))
	defer C.free(unsafe.Pointer(cv))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGBoosterSetParam(b.h, ck, cv)
	runtime.KeepAlive(b)
	return lastError("set param "+key+"="+value, rc)
}

// SetParams sets the parameters in order.
func (b *Booster) SetParams(ps []Param) error {
	for _, p := range ps {
		if err := b.SetParam(p.Key, p.Value); err != nil {
			return err
		}
	}
	return nil
}

// Update runs boosting iteration iter (0-indexed) on train.
func (b *Booster) Update(iter int, train *DMatrix) error {
	if b == nil || b.h == nil || train == nil || train.h == nil {
		return ErrClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGBoosterUpdateOneIter(b.h, C.int(iter), train.h)
	runtime.KeepAlive(b)
	runtime.KeepAlive(train)
	return lastError(fmt.Sprintf("update iteration %d", iter), rc)
}

// Eval evaluates the booster's eval_metric on dmats and returns XGBoost's
// line, such as "[3]\ttrain-rmse:0.5\tvalid-rmse:0.7". ParseEval decodes it.
func (b *Booster) Eval(iter int, dmats []*DMatrix, names []string) (string, error) {
	if b == nil || b.h == nil {
		return "", ErrClosed
	}
	if len(dmats) != len(names) || len(dmats) == 0 {
		return "", fmt.Errorf("xgboost eval: %d matrices, %d names", len(dmats), len(names))
	}
	hs := (*[1 << 20]C.DMatrixHandle)(C.malloc(C.size_t(len(dmats)) * C.size_t(unsafe.Sizeof(C.DMatrixHandle(nil)))))[:len(dmats):len(dmats)]
	cn := (*[1 << 20]*C.char)(C.calloc(C.size_t(len(names)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))[:len(names):len(names)]
	defer C.free(unsafe.Pointer(&hs[0]))
	defer C.free(unsafe.Pointer(&cn[0]))
	defer func() {
		for _, c := range cn {
			C.free(unsafe.Pointer(c))
		}
	}()
	for i, d := range dmats {
		if d == nil || d.h == nil {
			return "", ErrClosed
		}
		hs[i] = d.h
		cn[i] = C.CString(names[i])
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out *C.char
	rc := C.XGBoosterEvalOneIter(b.h, C.int(iter), &hs[0], &cn[0], C.bst_ulong(len(dmats)), &out)
	runtime.KeepAlive(b)
	runtime.KeepAlive(dmats)
	if err := lastError("eval", rc); err != nil {
		return "", err
	}
	return C.GoString(out), nil
}

// Predict returns one prediction per row of d using trees of iterations
// [0, iterEnd); iterEnd 0 means all.
func (b *Booster) Predict(d *DMatrix, iterEnd int) ([]float32, error) {
	if b == nil || b.h == nil || d == nil || d.h == nil {
		return nil, ErrClosed
	}
	cfg := C.CString(fmt.Sprintf(`{"type": 0, "training": false, "iteration_begin": 0, "iteration_end": %d, "strict_shape": false}`, iterEnd))
	defer C.free(unsafe.Pointer(cfg))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var shape *C.bst_ulong
	var dim C.bst_ulong
	var res *C.float
	rc := C.XGBoosterPredictFromDMatrix(b.h, d.h, cfg, &shape, &dim, &res)
	if err := lastError("predict", rc); err != nil {
		return nil, err
	}
	n := 1
	for _, s := range unsafe.Slice(shape, int(dim)) {
		n *= int(s)
	}
	out := make([]float32, n)
	copy(out, unsafe.Slice((*float32)(unsafe.Pointer(res)), n))
	runtime.KeepAlive(b)
	runtime.KeepAlive(d)
	return out, nil
}

// BoostedRounds returns the number of boosting rounds in the model.
func (b *Booster) BoostedRounds() (int, error) {
	if b == nil || b.h == nil {
		return 0, ErrClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var n C.int
	rc := C.XGBoosterBoostedRounds(b.h, &n)
	runtime.KeepAlive(b)
	return int(n), lastError("boosted rounds", rc)
}

// Save serialises the model in format f.
func (b *Booster) Save(f Format) ([]byte, error) {
	if b == nil || b.h == nil {
		return nil, ErrClosed
	}
	cfg := C.CString(`{"format": "` + f.String() + `"}`)
	defer C.free(unsafe.Pointer(cfg))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var n C.bst_ulong
	var p *C.char
	rc := C.XGBoosterSaveModelToBuffer(b.h, cfg, &n, &p)
	if err := lastError("save model "+f.String(), rc); err != nil {
		return nil, err
	}
	out := C.GoBytes(unsafe.Pointer(p), C.int(n))
	runtime.KeepAlive(b)
	return out, nil
}

// Load replaces the model with a saved one (JSON or UBJSON, detected).
func (b *Booster) Load(model []byte) error {
	if b == nil || b.h == nil {
		return ErrClosed
	}
	if len(model) == 0 {
		return errors.New("xgboost load model: empty buffer")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGBoosterLoadModelFromBuffer(b.h, unsafe.Pointer(&model[0]), C.bst_ulong(len(model)))
	runtime.KeepAlive(b)
	return lastError("load model", rc)
}

// SaveFile saves the model to path; the extension (.json or .ubj) selects
// the format.
func (b *Booster) SaveFile(path string) error {
	if b == nil || b.h == nil {
		return ErrClosed
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGBoosterSaveModel(b.h, cp)
	runtime.KeepAlive(b)
	return lastError("save model "+path, rc)
}

// LoadFile loads a model saved with SaveFile.
func (b *Booster) LoadFile(path string) error {
	if b == nil || b.h == nil {
		return ErrClosed
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGBoosterLoadModel(b.h, cp)
	runtime.KeepAlive(b)
	return lastError("load model "+path, rc)
}

// FeatureScore returns the importance of each used feature by
// importanceType ("gain", "total_gain", "weight", "cover",
// "total_cover"), keyed by XGBoost's feature name ("f0", "f1", ... when
// the matrix had no names).
func (b *Booster) FeatureScore(importanceType string) (map[string]float64, error) {
	if b == nil || b.h == nil {
		return nil, ErrClosed
	}
	cfg := C.CString(`{"importance_type": "` + importanceType + `"}`)
	defer C.free(unsafe.Pointer(cfg))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var nf, dim C.bst_ulong
	var names **C.char
	var shape *C.bst_ulong
	var scores *C.float
	rc := C.XGBoosterFeatureScore(b.h, cfg, &nf, &names, &dim, &shape, &scores)
	if err := lastError("feature score "+importanceType, rc); err != nil {
		return nil, err
	}
	m := make(map[string]float64, int(nf))
	if nf == 0 {
		return m, nil
	}
	ns := unsafe.Slice(names, int(nf))
	ss := unsafe.Slice((*float32)(unsafe.Pointer(scores)), int(nf))
	for i := range ns {
		m[C.GoString(ns[i])] = float64(ss[i])
	}
	runtime.KeepAlive(b)
	return m, nil
}

// Close frees the booster. It is safe to call more than once.
func (b *Booster) Close() error {
	if b == nil || b.h == nil {
		return nil
	}
	b.cleanup.Stop()
	rc := C.XGBoosterFree(b.h)
	b.h = nil
	if rc != 0 {
		return errors.New("xgboost free booster failed")
	}
	return nil
}
