// Package evaluate replays provisioning policies through the simulator on
// held-out windows and computes their metrics.
//
// For every window of a protocol and chain size, Replay builds the main
// timeline as features.Build does (cold or warm, P submitted after the
// warm-up; Q never exists on it) and walks a decision grid: P's
// submission plus every DecisionSec while P has not ended, P's start and
// P's end. At each grid time every policy that has not yet submitted is
// asked whether to submit Q now; Q is forced at P's end. A policy's
// outcome is a fork of the main timeline at its submission time in which
// Q is submitted and run until it starts, so every policy sees the same
// window. The oracle labels every grid time and keeps the best one, the
// ceiling no policy on the same grid can beat.
//
// Metrics are pure functions over the per-window rows (Row), which
// WriteCSV and ReadCSV carry through windows.csv.
//
// Glossary: r = Q.start - P.end (seconds; > 0 interruption, < 0 overlap);
// load class = the reactive policy's interruption: light (<= 2 h),
// medium (2-12 h), heavy (> 12 h).
package evaluate
