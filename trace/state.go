package trace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// State is a Slurm job state, as printed by sacct's State column.
type State uint8

// The job states Slurm reports. StateUnknown is the zero value: the input
// had no State column or an empty one.
const (
	StateUnknown State = iota
	StatePending
	StateRunning
	StateSuspended
	StateCompleted
	StateCancelled
	StateFailed
	StateTimeout
	StateNodeFail
	StatePreempted
	StateBootFail
	StateDeadline
	StateOutOfMemory
	StateRequeued
	StateRequeueHold
	StateRequeueFed
	StateResizing
	StateRevoked
	StateSpecialExit
	StateStopped
	StateSignaling
	StateStageOut
	stateCount
)

var stateNames = [stateCount]string{
	StateUnknown:     "UNKNOWN",
	StatePending:     "PENDING",
	StateRunning:     "RUNNING",
	StateSuspended:   "SUSPENDED",
	StateCompleted:   "COMPLETED",
	StateCancelled:   "CANCELLED",
	StateFailed:      "FAILED",
	StateTimeout:     "TIMEOUT",
	StateNodeFail:    "NODE_FAIL",
	StatePreempted:   "PREEMPTED",
	StateBootFail:    "BOOT_FAIL",
	StateDeadline:    "DEADLINE",
	StateOutOfMemory: "OUT_OF_MEMORY",
	StateRequeued:    "REQUEUED",
	StateRequeueHold: "REQUEUE_HOLD",
	StateRequeueFed:  "REQUEUE_FED",
	StateResizing:    "RESIZING",
	StateRevoked:     "REVOKED",
	StateSpecialExit: "SPECIAL_EXIT",
	StateStopped:     "STOPPED",
	StateSignaling:   "SIGNALING",
	StateStageOut:    "STAGE_OUT",
}

// stateByName maps exact upper-case names, the common case, without folding.
var stateByName = func() map[string]State {
	m := make(map[string]State, stateCount)
	for s := StatePending; s < stateCount; s++ {
		m[stateNames[s]] = s
	}
	return m
}()

// stateCodes maps squeue/sacct's compact state codes (sacct --state=CD,...).
var stateCodes = map[string]State{
	"PD": StatePending, "R": StateRunning, "S": StateSuspended, "CD": StateCompleted,
	"CA": StateCancelled, "F": StateFailed, "TO": StateTimeout, "NF": StateNodeFail,
	"PR": StatePreempted, "BF": StateBootFail, "DL": StateDeadline, "OOM": StateOutOfMemory,
	"RQ": StateRequeued, "RH": StateRequeueHold, "RF": StateRequeueFed, "RS": StateResizing,
	"RV": StateRevoked, "SE": StateSpecialExit, "ST": StateStopped, "SI": StateSignaling,
	"SO": StateStageOut,
}

// ErrBadState is returned (wrapped) by ParseState for text that is not a
// Slurm job state.
var ErrBadState = errors.New("invalid job state")

// String returns the state as sacct prints it ("NODE_FAIL").
func (s State) String() string {
	if s < stateCount {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Terminal reports whether the state is final: the job will not run again
// in this attempt.
func (s State) Terminal() bool {
	switch s {
	case StateUnknown, StatePending, StateRunning, StateSuspended, StateRequeued,
		StateRequeueHold, StateRequeueFed, StateResizing, StateSignaling, StateStageOut,
		StateStopped:
		return false
	}
	return true
}

// Requeueable reports whether a job in this state may come back as a new
// attempt with the same job ID (sacct -D shows each attempt as a row):
// preemption, node or boot failure, or an explicit requeue.
func (s State) Requeueable() bool {
	switch s {
	case StatePreempted, StateNodeFail, StateRequeued, StateRequeueHold, StateRequeueFed,
		StateBootFail:
		return true
	}
	return false
}

// ParseState parses a state as sacct prints it: a full name ("COMPLETED",
// "OUT_OF_MEMORY"), a compact code ("CD", "OOM"), or "CANCELLED by N" (or
// "CANCELLED BY N"), in which case by is the cancelling UID; otherwise by is
// NoID. Matching is case-insensitive. A name truncated by fixed-width
// output ("CANCELLED+") is an error, as is the empty string.
func ParseState(text string) (st State, by int64, err error) {
	by = NoID
	t := strings.TrimSpace(text)
	if t == "" {
		return StateUnknown, by, fmt.Errorf("%w: empty", ErrBadState)
	}
	if i := strings.IndexByte(t, ' '); i >= 0 {
		rest := strings.TrimSpace(t[i+1:])
		t = t[:i]
		if len(rest) < 3 || !strings.EqualFold(rest[:3], "by ") {
			return StateUnknown, by, fmt.Errorf("%w: %q", ErrBadState, text)
		}
		uid, perr := strconv.ParseInt(strings.TrimSpace(rest[3:]), 10, 64)
		if perr != nil || uid < 0 {
			return StateUnknown, by, fmt.Errorf("%w: bad uid in %q", ErrBadState, text)
		}
		by = uid
	}
	if by == NoID {
		if s, ok := stateByName[t]; ok {
			return s, by, nil
		}
	}
	for s := StatePending; s < stateCount; s++ {
		if strings.EqualFold(t, stateNames[s]) {
			if by != NoID && s != StateCancelled {
				return StateUnknown, NoID, fmt.Errorf("%w: only CANCELLED takes \"by\": %q", ErrBadState, text)
			}
			return s, by, nil
		}
	}
	if s, ok := stateCodes[strings.ToUpper(t)]; ok && by == NoID {
		return s, by, nil
	}
	if strings.HasSuffix(t, "+") {
		return StateUnknown, NoID, fmt.Errorf("%w: %q is truncated (fixed-width sacct output)", ErrBadState, text)
	}
	return StateUnknown, NoID, fmt.Errorf("%w: %q", ErrBadState, text)
}
