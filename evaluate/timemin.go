package evaluate

import "time"

// TimeMinPolicy is a Causal policy that also chooses Q's --time-min: the
// policy dimension submission time × time-min. Replay submits its Q with
// QTimeMinSec (seconds; 0 is none) in place of the protocol's (the
// DecisionContext's Q carries it while the policy decides), so its row's
// QStart, RSec and QLimitSec are those of that Q; every other policy's Q
// keeps the protocol's. Hindsight policies do not choose one.
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
}

func (w withTimeMin) Name() string {
	return w.Causal.Name() + "+time-min=" + (time.Duration(w.sec) * time.Second).String()
}

func (w withTimeMin) QTimeMinSec() int64 { return w.sec }
