package ingest

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Want  int64
		Err   error
	}{
		{Name: "HHMMSS", Input: "01:02:03", Want: 3723},
		{Name: "Zero", Input: "00:00:00", Want: 0},
		{Name: "OneMinute", Input: "00:01:00", Want: 60},
		{Name: "DaysHHMMSS", Input: "2-03:04:05", Want: 2*86400 + 3*3600 + 4*60 + 5},
		{Name: "Year", Input: "365-00:00:00", Want: 365 * 86400},
		{Name: "MMSS", Input: "05:06", Want: 306},
		{Name: "MMSSmmm", Input: "00:00.003", Want: 0},
		{Name: "MMSSmmmRounding", Input: "01:02.999", Want: 62},
		{Name: "HHMMSSmmm", Input: "1:02:03.5", Want: 3723},
		{Name: "Minutes", Input: "60", Want: 3600},
		{Name: "DaysHH", Input: "1-02", Want: 86400 + 2*3600},
		{Name: "DaysHHMM", Input: "1-02:03", Want: 86400 + 2*3600 + 3*60},
		{Name: "ZeroDaysHHMM", Input: "0-02:03", Want: 2*3600 + 3*60},
		{Name: "ZeroDaysHH", Input: "0-05", Want: 5 * 3600},
		{Name: "HoursOver24", Input: "100:00:00", Want: 100 * 3600},
		{Name: "Unlimited", Input: "UNLIMITED", Want: limitUnknown},
		{Name: "PartitionLimit", Input: "Partition_Limit", Want: limitUnknown},
		{Name: "Empty", Input: "", Want: limitUnknown},
		{Name: "ErrGarbage", Input: "abc", Err: ErrBadDuration},
		{Name: "ErrFourParts", Input: "1:2:3:4", Err: ErrBadDuration},
		{Name: "ErrNegative", Input: "-1", Err: ErrBadDuration},
		{Name: "ErrNegativeDays", Input: "-1-00:00:00", Err: ErrBadDuration},
		{Name: "ErrDaysOnly", Input: "1-", Err: ErrBadDuration},
		{Name: "ErrEmptyPart", Input: "01::02", Err: ErrBadDuration},
		{Name: "ErrColon", Input: ":", Err: ErrBadDuration},
		{Name: "ErrBadFraction", Input: "00:01.x", Err: ErrBadDuration},
		{Name: "ErrEmptyFraction", Input: "00:01.", Err: ErrBadDuration},
		{Name: "ErrLowercaseUnlimited", Input: "unlimited", Err: ErrBadDuration},
		{Name: "ErrOverflow", Input: "999999999999999999:00:00", Err: ErrBadDuration},
		{Name: "ErrOverflowDays", Input: "999999999999999999-00:00:00", Err: ErrBadDuration},
		{Name: "LongestDays", Input: "11574074-00:00:00", Want: 11574074 * 86400},
		{Name: "ErrTooLong", Input: "11574075-00:00:00", Err: ErrBadDuration},
		{Name: "ErrTooLongHours", Input: "300000000:00:00", Err: ErrBadDuration},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := parseDuration([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("parseDuration(%q) error:\ngot  %v\nwant %v", tt.Input, err, tt.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseDuration(%q): %v", tt.Input, err)
			}
			if got != tt.Want {
				t.Errorf("parseDuration(%q):\ngot  %d\nwant %d", tt.Input, got, tt.Want)
			}
		})
	}
}

func TestParseMinutes(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Want  int64
		Err   error
	}{
		{Name: "Zero", Input: "0", Want: 0},
		{Name: "One", Input: "1", Want: 60},
		{Name: "Day", Input: "1440", Want: 86400},
		{Name: "Year", Input: "525600", Want: 365 * 86400},
		{Name: "Unlimited", Input: "UNLIMITED", Want: limitUnknown},
		{Name: "PartitionLimit", Input: "Partition_Limit", Want: limitUnknown},
		{Name: "Empty", Input: "", Want: limitUnknown},
		{Name: "ErrNegative", Input: "-5", Err: ErrBadDuration},
		{Name: "ErrDecimal", Input: "1.5", Err: ErrBadDuration},
		{Name: "ErrDuration", Input: "00:30:00", Err: ErrBadDuration},
		{Name: "ErrGarbage", Input: "abc", Err: ErrBadDuration},
		{Name: "ErrOverflow", Input: "999999999999999999", Err: ErrBadDuration},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := parseMinutes([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("parseMinutes(%q) error:\ngot  %v\nwant %v", tt.Input, err, tt.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseMinutes(%q): %v", tt.Input, err)
			}
			if got != tt.Want {
				t.Errorf("parseMinutes(%q):\ngot  %d\nwant %d", tt.Input, got, tt.Want)
			}
		})
	}
}

func TestParseMem(t *testing.T) {
	tests := []struct {
		Name    string
		Input   string
		WantMB  float64
		WantPer byte
		Err     error
	}{
		{Name: "Megabytes", Input: "20000M", WantMB: 20000},
		{Name: "NoUnit", Input: "100", WantMB: 100},
		{Name: "Kilobytes", Input: "3104K", WantMB: 3104.0 / 1024},
		{Name: "Gigabytes", Input: "1G", WantMB: 1024},
		{Name: "DecimalG", Input: "0.49G", WantMB: 0.49 * 1024},
		{Name: "DecimalGTenth", Input: "0.10G", WantMB: 0.10 * 1024},
		{Name: "Terabytes", Input: "2T", WantMB: 2 * 1024 * 1024},
		{Name: "Petabytes", Input: "1P", WantMB: 1024 * 1024 * 1024},
		{Name: "LowercaseUnit", Input: "1g", WantMB: 1024},
		{Name: "PerNode", Input: "4Gn", WantMB: 4096, WantPer: 'n'},
		{Name: "PerCPU", Input: "500Mc", WantMB: 500, WantPer: 'c'},
		{Name: "PerNodeNoUnit", Input: "250n", WantMB: 250, WantPer: 'n'},
		{Name: "Zero", Input: "0", WantMB: 0},
		{Name: "ErrEmpty", Input: "", Err: ErrBadMemory},
		{Name: "ErrUnitOnly", Input: "G", Err: ErrBadMemory},
		{Name: "ErrSuffixOnly", Input: "n", Err: ErrBadMemory},
		{Name: "ErrGarbage", Input: "abc", Err: ErrBadMemory},
		{Name: "ErrNegative", Input: "-1G", Err: ErrBadMemory},
		{Name: "ErrUnknownUnit", Input: "1X", Err: ErrBadMemory},
		{Name: "ErrNaN", Input: "NaN", Err: ErrBadMemory},
		{Name: "ErrInf", Input: "Inf", Err: ErrBadMemory},
		{Name: "ErrTwoNumbers", Input: "1.2.3M", Err: ErrBadMemory},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			mb, per, err := parseMem([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("parseMem(%q) error:\ngot  %v\nwant %v", tt.Input, err, tt.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseMem(%q): %v", tt.Input, err)
			}
			if math.Abs(mb-tt.WantMB) > 1e-9*math.Max(1, tt.WantMB) || per != tt.WantPer {
				t.Errorf("parseMem(%q):\ngot  %v MB, per %q\nwant %v MB, per %q", tt.Input, mb, per, tt.WantMB, tt.WantPer)
			}
		})
	}
}

func TestParseExitCode(t *testing.T) {
	tests := []struct {
		Name     string
		Input    string
		WantCode int32
		WantSig  int32
		Err      error
	}{
		{Name: "Success", Input: "0:0"},
		{Name: "Code", Input: "3:0", WantCode: 3},
		{Name: "Signal", Input: "0:9", WantSig: 9},
		{Name: "SIGTERM", Input: "0:15", WantSig: 15},
		{Name: "Max", Input: "255:255", WantCode: 255, WantSig: 255},
		{Name: "Empty", Input: ""},
		{Name: "ErrNoColon", Input: "1", Err: ErrBadExitCode},
		{Name: "ErrCodeRange", Input: "256:0", Err: ErrBadExitCode},
		{Name: "ErrSignalRange", Input: "0:256", Err: ErrBadExitCode},
		{Name: "ErrNegative", Input: "-1:0", Err: ErrBadExitCode},
		{Name: "ErrColonOnly", Input: ":", Err: ErrBadExitCode},
		{Name: "ErrNoSignal", Input: "1:", Err: ErrBadExitCode},
		{Name: "ErrGarbage", Input: "a:b", Err: ErrBadExitCode},
		{Name: "ErrThreeParts", Input: "0:0:0", Err: ErrBadExitCode},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			code, sig, err := parseExitCode([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("parseExitCode(%q) error:\ngot  %v\nwant %v", tt.Input, err, tt.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseExitCode(%q): %v", tt.Input, err)
			}
			if code != tt.WantCode || sig != tt.WantSig {
				t.Errorf("parseExitCode(%q):\ngot  %d:%d\nwant %d:%d", tt.Input, code, sig, tt.WantCode, tt.WantSig)
			}
		})
	}
}

func TestTresGPUs(t *testing.T) {
	tests := []struct {
		Name   string
		Input  string
		Want   int64
		WantOK bool
		Err    error
	}{
		{Name: "NoGPU", Input: "billing=1,cpu=1,mem=20000M,node=1"},
		{Name: "Empty", Input: ""},
		{Name: "Untyped", Input: "billing=4,cpu=4,gres/gpu=2,mem=8G,node=1", Want: 2, WantOK: true},
		{Name: "UntypedZero", Input: "cpu=4,gres/gpu=0", Want: 0, WantOK: true},
		{Name: "Typed", Input: "cpu=4,gres/gpu:a100=2,gres/gpu:v100=1", Want: 3, WantOK: true},
		{Name: "UntypedWins", Input: "gres/gpu:a100=4,gres/gpu=4", Want: 4, WantOK: true},
		{Name: "UntypedFirst", Input: "gres/gpu=3,gres/gpu:a100=3", Want: 3, WantOK: true},
		{Name: "OtherGPUTRES", Input: "gres/gpumem=40G,gres/gpuutil=50,gres/gpu=1", Want: 1, WantOK: true},
		{Name: "OtherGPUTRESOnly", Input: "gres/gpumem=40G"},
		{Name: "OtherGres", Input: "gres/mps=100,cpu=1"},
		{Name: "ErrNoValue", Input: "gres/gpu", Err: ErrBadNumber},
		{Name: "ErrTypedNoValue", Input: "gres/gpu:a100", Err: ErrBadNumber},
		{Name: "ErrGarbage", Input: "gres/gpu=x", Err: ErrBadNumber},
		{Name: "ErrNegative", Input: "gres/gpu=-1", Err: ErrBadNumber},
		{Name: "ErrTooMany", Input: "gres/gpu=4294967297", Err: ErrBadNumber},
		{Name: "ErrTypedSumTooMany", Input: "gres/gpu:a=2147483647,gres/gpu:b=1", Err: ErrBadNumber},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, ok, err := tresGPUs([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("tresGPUs(%q) error:\ngot  %v\nwant %v", tt.Input, err, tt.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("tresGPUs(%q): %v", tt.Input, err)
			}
			if got != tt.Want || ok != tt.WantOK {
				t.Errorf("tresGPUs(%q):\ngot  %d, %v\nwant %d, %v", tt.Input, got, ok, tt.Want, tt.WantOK)
			}
		})
	}
}

func TestParseJobID(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Want  jobID
		Err   error
	}{
		{Name: "Plain", Input: "478729", Want: jobID{base: []byte("478729"), id: 478729, task: -1}},
		{Name: "ArrayTask", Input: "3_1", Want: jobID{base: []byte("3_1"), id: 3, task: 1, array: true}},
		{Name: "ArrayRange", Input: "7_[1-3%2]", Want: jobID{base: []byte("7_[1-3%2]"), id: 7, task: -1, array: true}},
		{Name: "ArrayList", Input: "7_[1,4,9]", Want: jobID{base: []byte("7_[1,4,9]"), id: 7, task: -1, array: true}},
		{Name: "Het", Input: "12+1", Want: jobID{base: []byte("12+1"), id: 12, task: -1, het: true, hetOff: 1}},
		{Name: "HetLeader", Input: "12+0", Want: jobID{base: []byte("12+0"), id: 12, task: -1, het: true}},
		{Name: "Batch", Input: "1.batch", Want: jobID{base: []byte("1"), step: []byte("batch"), id: 1, task: -1}},
		{Name: "Extern", Input: "1.extern", Want: jobID{base: []byte("1"), step: []byte("extern"), id: 1, task: -1}},
		{Name: "NumberedStep", Input: "1.0", Want: jobID{base: []byte("1"), step: []byte("0"), id: 1, task: -1}},
		{Name: "ArrayTaskExtern", Input: "3_0.extern", Want: jobID{base: []byte("3_0"), step: []byte("extern"), id: 3, task: 0, array: true}},
		{Name: "HetStep", Input: "12+1.0", Want: jobID{base: []byte("12+1"), step: []byte("0"), id: 12, task: -1, het: true, hetOff: 1}},
		{Name: "ErrEmpty", Input: "", Err: ErrBadJobID},
		{Name: "ErrGarbage", Input: "abc", Err: ErrBadJobID},
		{Name: "ErrTrailing", Input: "12x", Err: ErrBadJobID},
		{Name: "ErrEmptyStep", Input: "12.", Err: ErrBadJobID},
		{Name: "ErrStepOnly", Input: ".batch", Err: ErrBadJobID},
		{Name: "ErrEmptyTask", Input: "3_", Err: ErrBadJobID},
		{Name: "ErrBadTask", Input: "3_x", Err: ErrBadJobID},
		{Name: "ErrNegativeTask", Input: "3_-1", Err: ErrBadJobID},
		{Name: "ErrOpenRange", Input: "3_[1-3", Err: ErrBadJobID},
		{Name: "ErrEmptyHet", Input: "12+", Err: ErrBadJobID},
		{Name: "ErrNegativeHet", Input: "12+-1", Err: ErrBadJobID},
		{Name: "ErrTooLong", Input: "1234567890123456789", Err: ErrBadJobID},
		{Name: "ErrSign", Input: "-5", Err: ErrBadJobID},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := parseJobID([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("parseJobID(%q) error:\ngot  %v\nwant %v", tt.Input, err, tt.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseJobID(%q): %v", tt.Input, err)
			}
			if diff := cmp.Diff(tt.Want, got, cmp.AllowUnexported(jobID{})); diff != "" {
				t.Errorf("parseJobID(%q) mismatch (-want +got):\n%s", tt.Input, diff)
			}
		})
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		Input string
		Want  int64
		Err   bool
	}{
		{Input: "0"}, {Input: "42", Want: 42}, {Input: "-7", Want: -7}, {Input: "+7", Want: 7},
		{Input: "999999999999999999", Want: 999999999999999999},
		{Input: "", Err: true}, {Input: "-", Err: true}, {Input: "1x", Err: true},
		{Input: "1 ", Err: true}, {Input: "1234567890123456789", Err: true},
	}
	for _, tt := range tests {
		got, err := parseInt([]byte(tt.Input))
		if tt.Err {
			if !errors.Is(err, ErrBadNumber) {
				t.Errorf("parseInt(%q) error:\ngot  %v\nwant %v", tt.Input, err, ErrBadNumber)
			}
			continue
		}
		if err != nil || got != tt.Want {
			t.Errorf("parseInt(%q):\ngot  %d, %v\nwant %d", tt.Input, got, err, tt.Want)
		}
	}
}
