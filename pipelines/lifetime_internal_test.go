package pipelines

import (
	"errors"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
)

// TestLifetimeSpec_Options: the study key's handover defaults to 10
// minutes, "off" is no handover, and a bad length is the study's fault.
func TestLifetimeSpec_Options(t *testing.T) {
	var none *LifetimeSpec
	if lo, err := none.options(); lo != nil || err != nil {
		t.Fatalf("nil spec: %v, %v; want nil, nil", lo, err)
	}
	month := Duration(720 * time.Hour)
	for _, tc := range []struct {
		handover string
		want     int64
	}{{"", evaluate.DefaultHandoverSec}, {"off", evaluate.HandoverOff}, {"5m", 300}, {"0s", 0}} {
		lo, err := (&LifetimeSpec{Length: month, Handover: tc.handover, Every: 6}).options()
		if err != nil {
			t.Fatal(err)
		}
		if lo.LengthSec != 720*3600 || lo.HandoverSec != tc.want || lo.Every != 6 {
			t.Errorf("handover %q: %+v; want length %d, handover %d, every 6", tc.handover, *lo, 720*3600, tc.want)
		}
	}
	if _, err := (&LifetimeSpec{Length: month, Handover: "-1m"}).options(); !errors.Is(err, ErrStudy) {
		t.Errorf("handover -1m: %v, want ErrStudy", err)
	}
}
