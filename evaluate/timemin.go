package evaluate

import (
	"fmt"
	"strings"
	"time"
)

// TimeMinPolicy is a Causal policy that also chooses Q's --time-min: the
// policy dimension submission time × time-min. Replay submits its Q with
// QTimeMinSec (seconds; 0 is none) in place of the protocol's (the
// DecisionContext's Q carries it while the policy decides), so its row's
// QStart, RSec and QLimitSec are those of that Q; every other policy's Q
// keeps the protocol's. Lifetimes submit each successor with it. Hindsight
// policies do not choose one.
type TimeMinPolicy interface {
	Causal
	QTimeMinSec() int64
}

// WithTimeMin returns c deciding as before but submitting Q with a
// time-min of sec seconds (0: none), named "NAME+time-min=DUR".
func WithTimeMin(c Causal, sec int64) TimeMinPolicy {
	return withTimeMin{Causal: c, sec: max(sec, 0)}
}

type withTimeMin struct {
	Causal
	sec int64
	// label, when set, is the name (the policy list's "BASE@tmin=DUR").
	label string
}

func (w withTimeMin) Name() string {
	if w.label != "" {
		return w.label
	}
	return w.Causal.Name() + "+time-min=" + (time.Duration(w.sec) * time.Second).String()
}

func (w withTimeMin) QTimeMinSec() int64 { return w.sec }

// unwrapPolicy returns the policy a WithTimeMin wraps, or p itself.
func unwrapPolicy(p Policy) Policy {
	if w, ok := p.(withTimeMin); ok {
		return w.Causal
	}
	return p
}

// TimeMinKey is the policy list's time-min parameter: "BASE@tmin=DUR"
// submits BASE's Q with a --time-min of DUR (a Go duration such as 6h or
// 90m, whole seconds > 0; WithTimeMin).
const TimeMinKey = "tmin"

// timeMinSpec is a policy's "@tmin=DUR" suffix.
type timeMinSpec struct {
	set  bool
	sec  int64
	text string // DUR as given
}

// cutTimeMin splits "BASE@tmin=DUR" into BASE and DUR; s without the
// suffix is returned as is. A DUR that is not a whole number of seconds
// > 0 is an error wrapping ErrPolicy.
func cutTimeMin(s string) (string, timeMinSpec, error) {
	i := strings.LastIndex(s, "@"+TimeMinKey+"=")
	if i < 0 {
		return s, timeMinSpec{}, nil
	}
	base, text := s[:i], s[i+len("@"+TimeMinKey+"="):]
	d, err := time.ParseDuration(text)
	if err != nil || d < time.Second || d%time.Second != 0 || base == "" {
		return "", timeMinSpec{}, fmt.Errorf("%w %q: @%s= wants a policy and a duration of whole seconds > 0 (e.g. reactive@%s=6h)", ErrPolicy, s, TimeMinKey, TimeMinKey)
	}
	return base, timeMinSpec{set: true, sec: int64(d / time.Second), text: text}, nil
}

// withTimeMins wraps each of ps (parsed from one "BASE@tmin=DUR") in
// WithTimeMin, named "NAME@tmin=DUR"; a Hindsight policy, which chooses
// no Q, is an error wrapping ErrPolicy.
func withTimeMins(ps []Policy, tm timeMinSpec) ([]Policy, error) {
	out := make([]Policy, len(ps))
	for i, p := range ps {
		c, ok := p.(Causal)
		if !ok {
			return nil, fmt.Errorf("%w %q: a hindsight policy takes no @%s", ErrPolicy, p.Name()+"@"+TimeMinKey+"="+tm.text, TimeMinKey)
		}
		out[i] = withTimeMin{Causal: c, sec: tm.sec, label: p.Name() + "@" + TimeMinKey + "=" + tm.text}
	}
	return out, nil
}
