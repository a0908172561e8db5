package trace_test

import (
	"errors"
	"testing"

	"github.com/mirage-hpc/mirage/trace"
)

func TestParseState(t *testing.T) {
	tests := []struct {
		In    string
		Want  trace.State
		By    int64
		Error bool
	}{
		{"COMPLETED", trace.StateCompleted, trace.NoID, false},
		{"CANCELLED by 0", trace.StateCancelled, 0, false},
		{"CANCELLED by 12345", trace.StateCancelled, 12345, false},
		{"cancelled BY 7", trace.StateCancelled, 7, false},
		{"NODE_FAIL", trace.StateNodeFail, trace.NoID, false},
		{"OUT_OF_MEMORY", trace.StateOutOfMemory, trace.NoID, false},
		{"OOM", trace.StateOutOfMemory, trace.NoID, false},
		{"CD", trace.StateCompleted, trace.NoID, false},
		{"timeout", trace.StateTimeout, trace.NoID, false},
		{" PREEMPTED ", trace.StatePreempted, trace.NoID, false},
		{"CANCELLED+", 0, trace.NoID, true},
		{"", 0, trace.NoID, true},
		{"COMPLETED by 3", 0, trace.NoID, true},
		{"CANCELLED by x", 0, trace.NoID, true},
		{"CANCELLED for 3", 0, trace.NoID, true},
		{"BOGUS", 0, trace.NoID, true},
	}
	for _, tt := range tests {
		t.Run(tt.In, func(t *testing.T) {
			st, by, err := trace.ParseState(tt.In)
			if tt.Error {
				if !errors.Is(err, trace.ErrBadState) {
					t.Fatalf("err = %v, want ErrBadState", err)
				}
				return
			}
			if err != nil || st != tt.Want || by != tt.By {
				t.Fatalf("got %v by %d err %v\nwant %v by %d", st, by, err, tt.Want, tt.By)
			}
		})
	}
}

func TestState_StringRoundTrip(t *testing.T) {
	for s := trace.StatePending; s <= trace.StateStageOut; s++ {
		got, _, err := trace.ParseState(s.String())
		if err != nil || got != s {
			t.Errorf("ParseState(%q) = %v, %v", s.String(), got, err)
		}
	}
}
