package features

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/mirage-hpc/mirage/sim"
)

// TestWriteParquet reads the file back with parquet-go, a reader
// independent of the Arrow writer.
func TestWriteParquet(t *testing.T) {
	o := testOptions(sim.WindowCold)
	o.Windows = 2
	s, _, err := Build(context.Background(), busyJobs(300, 8, 4), o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.parquet")
	meta := FileMeta{Protocol: "test", TraceDigest: "abc", Seed: 7, SimConfig: o.Config}
	if err := WriteParquet(path, &s, meta); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRows() != int64(s.Len()) {
		t.Errorf("%d rows, want %d", pf.NumRows(), s.Len())
	}
	var cols []string
	for _, fld := range pf.Schema().Fields() {
		cols = append(cols, fld.Name())
	}
	want := append([]string{ColWindowID, ColWindowStart, ColChainNodes, ColProbeTime}, Names()...)
	want = append(want, ColLabelR, ColLabelWait, ColWeight)
	if d := cmp.Diff(want, cols); d != "" {
		t.Errorf("columns (-want +got):\n%s", d)
	}
	for k, v := range map[string]string{MetaProtocol: "test", MetaTraceDigest: "abc", MetaSeed: "7",
		MetaSchemaVersion: strconv.Itoa(FeatureSchemaVersion)} {
		if got, ok := pf.Lookup(k); !ok || got != v {
			t.Errorf("metadata %s = %q, %v; want %q", k, got, ok, v)
		}
	}
	fj, _ := pf.Lookup(MetaFeatures)
	var feats []Feature
	if err := json.Unmarshal([]byte(fj), &feats); err != nil || !cmp.Equal(feats, Schema()) {
		t.Errorf("feature metadata = %s (%v)", fj, err)
	}
	cj, _ := pf.Lookup(MetaSimConfig)
	var cfg sim.Config
	if err := json.Unmarshal([]byte(cj), &cfg); err != nil || !cmp.Equal(cfg, o.Config) {
		t.Errorf("sim config metadata = %s (%v)", cj, err)
	}

	type row struct {
		WindowID  int32   `parquet:"window_id"`
		Probe     int64   `parquet:"probe_time"`
		PEnding   float64 `parquet:"p_remaining_sec"`
		LabelR    int64   `parquet:"label_r_sec"`
		LabelWait int64   `parquet:"label_wait_sec"`
	}
	r := parquet.NewGenericReader[row](f)
	rows := make([]row, s.Len())
	n, err := r.Read(rows)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if n != s.Len() {
		t.Fatalf("read %d rows, want %d", n, s.Len())
	}
	pr := s.Features[indexOf(t, "p_remaining_sec")]
	for i, got := range rows {
		w := row{s.WindowID[i], s.ProbeTime[i], pr[i], s.LabelRSec[i], s.LabelWaitSec[i]}
		if got != w {
			t.Fatalf("row %d = %+v, want %+v", i, got, w)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
