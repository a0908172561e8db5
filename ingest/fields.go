package ingest

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// parseInt parses a decimal integer (optionally signed).
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: empty", ErrBadNumber)
	}
	neg := false
	s := b
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, fmt.Errorf("%w: %q", ErrBadNumber, b)
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: %q", ErrBadNumber, b)
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// limitUnknown is returned by the limit parsers for UNLIMITED,
// Partition_Limit and the like.
const limitUnknown = -1

func isNoLimit(b []byte) bool {
	switch string(b) {
	case "UNLIMITED", "Partition_Limit", "INFINITE", "NONE", "None", "":
		return true
	}
	return false
}

// parseDuration parses a Slurm duration: [D-]HH:MM:SS, MM:SS, MM:SS.mmm,
// HH:MM:SS.mmm, or a bare number of minutes (sacct prints Timelimit that
// way for some inputs); fractions of a second are truncated. It returns
// seconds, or limitUnknown for UNLIMITED or Partition_Limit.
func parseDuration(b []byte) (int64, error) {
	if isNoLimit(b) {
		return limitUnknown, nil
	}
	s := b
	var days int64
	hasDays := false
	if i := bytes.IndexByte(s, '-'); i >= 0 {
		d, err := parseInt(s[:i])
		if err != nil || d < 0 || d > maxDurationSec {
			return 0, fmt.Errorf("%w: %q", ErrBadDuration, b)
		}
		days, s, hasDays = d, s[i+1:], true
	}
	if i := bytes.IndexByte(s, '.'); i >= 0 {
		if _, err := parseInt(s[i+1:]); err != nil {
			return 0, fmt.Errorf("%w: %q", ErrBadDuration, b)
		}
		s = s[:i]
	}
	parts := bytes.Split(s, []byte{':'})
	var v [3]int64
	for i, p := range parts {
		if len(parts) > 3 || len(p) == 0 {
			return 0, fmt.Errorf("%w: %q", ErrBadDuration, b)
		}
		n, err := parseInt(p)
		if err != nil || n < 0 || n > maxDurationSec {
			return 0, fmt.Errorf("%w: %q", ErrBadDuration, b)
		}
		v[i] = n
	}
	var sec int64
	switch {
	case len(parts) == 3:
		sec = v[0]*3600 + v[1]*60 + v[2]
	case len(parts) == 2 && hasDays:
		sec = v[0]*3600 + v[1]*60 // D-HH:MM
	case len(parts) == 2:
		sec = v[0]*60 + v[1] // MM:SS
	case hasDays:
		sec = v[0] * 3600 // D-HH
	default:
		sec = v[0] * 60 // minutes
	}
	if sec += days * 86400; sec > maxDurationSec {
		return 0, fmt.Errorf("%w: %q is too long", ErrBadDuration, b)
	}
	return sec, nil
}

// maxDurationSec bounds durations (and each of their numbers, so that
// the sum cannot overflow) at about 31,700 years, far beyond any real
// limit or run time.
const maxDurationSec = 1_000_000_000_000

// parseMinutes parses TimelimitRaw: minutes, or UNLIMITED/Partition_Limit.
// It returns seconds or limitUnknown.
func parseMinutes(b []byte) (int64, error) {
	if isNoLimit(b) {
		return limitUnknown, nil
	}
	n, err := parseInt(b)
	if err != nil || n < 0 || n > maxDurationSec/60 {
		return 0, fmt.Errorf("%w: %q (want minutes, UNLIMITED or Partition_Limit)", ErrBadDuration, b)
	}
	return n * 60, nil
}

// memUnit returns the size in MiB of memory unit c (upper case).
func memUnit(c byte) (float64, bool) {
	switch c {
	case 'K':
		return 1.0 / 1024, true
	case 'M':
		return 1, true
	case 'G':
		return 1024, true
	case 'T':
		return 1024 * 1024, true
	case 'P':
		return 1024 * 1024 * 1024, true
	}
	return 0, false
}

// parseMem parses ReqMem: a number with an optional unit K, M (default),
// G, T or P, and an optional old-style suffix n (per node) or c (per CPU).
// It returns MiB and the per-unit multiplier kind: 0 total, 'n', 'c'.
func parseMem(b []byte) (mb float64, per byte, err error) {
	s := b
	if len(s) == 0 {
		return 0, 0, fmt.Errorf("%w: empty", ErrBadMemory)
	}
	if c := s[len(s)-1]; c == 'n' || c == 'c' {
		per, s = c, s[:len(s)-1]
	}
	unit := 1.0
	if len(s) > 0 {
		c := s[len(s)-1]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if u, ok := memUnit(c); ok {
			unit, s = u, s[:len(s)-1]
		}
	}
	if len(s) > 0 && len(s) <= 15 && isDigits(s) {
		// Whole numbers below 10^15 are exact in a float64: the common
		// "250G" needs no ParseFloat.
		n, _ := parseInt(s)
		return float64(n) * unit, per, nil
	}
	v, perr := strconv.ParseFloat(string(s), 64)
	if perr != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || len(s) == 0 {
		return 0, 0, fmt.Errorf("%w: %q", ErrBadMemory, b)
	}
	return v * unit, per, nil
}

// parseExitCode parses "code:signal". An empty field is 0:0.
func parseExitCode(b []byte) (code, sig int32, err error) {
	if len(b) == 0 {
		return 0, 0, nil
	}
	i := bytes.IndexByte(b, ':')
	if i < 0 {
		return 0, 0, fmt.Errorf("%w: %q (want code:signal)", ErrBadExitCode, b)
	}
	c, err1 := parseInt(b[:i])
	s, err2 := parseInt(b[i+1:])
	if err1 != nil || err2 != nil || c < 0 || c > 255 || s < 0 || s > 255 {
		return 0, 0, fmt.Errorf("%w: %q (want code:signal)", ErrBadExitCode, b)
	}
	return int32(c), int32(s), nil
}

// tresGPUs returns the GPU count in a TRES string such as
// "billing=4,cpu=4,gres/gpu=2,mem=8G,node=1": the untyped gres/gpu count,
// or the sum of typed gres/gpu:TYPE counts when there is no untyped one.
func tresGPUs(b []byte) (int64, bool, error) {
	var untyped, typed int64
	var hasU, hasT bool
	for len(b) > 0 {
		item := b
		if i := bytes.IndexByte(b, ','); i >= 0 {
			item, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if !bytes.HasPrefix(item, []byte("gres/gpu")) {
			continue
		}
		name := item
		eq := bytes.IndexByte(item, '=')
		if eq >= 0 {
			name = item[:eq]
		}
		isUntyped := len(name) == len("gres/gpu")
		if !isUntyped && name[len("gres/gpu")] != ':' {
			continue // another TRES, such as gres/gpumem or gres/gpuutil
		}
		if eq < 0 {
			return 0, false, fmt.Errorf("%w: %q", ErrBadNumber, item)
		}
		n, err := parseInt(item[eq+1:])
		if err != nil || n < 0 || n > math.MaxInt32 {
			return 0, false, fmt.Errorf("%w: %q", ErrBadNumber, item)
		}
		if isUntyped {
			untyped, hasU = n, true
		} else {
			typed, hasT = typed+n, true
		}
	}
	if hasU {
		return untyped, true, nil
	}
	if typed > math.MaxInt32 {
		return 0, false, fmt.Errorf("%w: %d GPUs", ErrBadNumber, typed)
	}
	return typed, hasT, nil
}

// jobID is a parsed sacct JobID.
type jobID struct {
	base   []byte // the allocation's JobID (without .step)
	step   []byte // step name after '.', nil for an allocation
	id     int64  // numeric ID before '_' or '+'
	task   int64  // array task, -1 when none or a range
	array  bool   // N_T or N_[range]
	het    bool   // N+K
	hetOff int64
}

// parseJobID parses N, N_T, N_[1-3%2], N+K and any of those followed by
// .STEP.
func parseJobID(b []byte) (jobID, error) {
	var j jobID
	j.task = -1
	j.base = b
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		j.base, j.step = b[:i], b[i+1:]
		if len(j.step) == 0 {
			return j, fmt.Errorf("%w: %q", ErrBadJobID, b)
		}
	}
	s := j.base
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 || end > 18 {
		return j, fmt.Errorf("%w: %q", ErrBadJobID, b)
	}
	j.id, _ = parseInt(s[:end])
	rest := s[end:]
	switch {
	case len(rest) == 0:
	case rest[0] == '_':
		j.array = true
		t := rest[1:]
		if len(t) > 1 && t[0] == '[' && t[len(t)-1] == ']' {
			break // pending range
		}
		n, err := parseInt(t)
		if err != nil || n < 0 {
			return j, fmt.Errorf("%w: %q", ErrBadJobID, b)
		}
		j.task = n
	case rest[0] == '+':
		n, err := parseInt(rest[1:])
		if err != nil || n < 0 {
			return j, fmt.Errorf("%w: %q", ErrBadJobID, b)
		}
		j.het, j.hetOff = true, n
	default:
		return j, fmt.Errorf("%w: %q", ErrBadJobID, b)
	}
	return j, nil
}
