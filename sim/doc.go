// Package sim is Mirage's event-driven, deterministic simulator of a Slurm
// partition: whole-node allocation on N identical nodes, multifactor
// priority (age, job size, fair-share), a main scheduler that stops at the
// first job that does not fit, and a periodic backfill pass (conservative
// or EASY). Time is int64 Unix seconds inside the loop; events are ordered
// totally by (time, kind, sequence), so the same jobs and Config give the
// same schedule.
//
// A Sim is built from a job table (FromTrace converts a trace), advanced
// with RunUntil and RunUntilStarted, extended with Submit (the service
// chain's P and Q), and forked with Clone: a cheap, independent copy, so
// every probe of a window starts from one warmed-up state. Snapshot and
// EstimatedStart expose the queue as a live provisioner would see it.
//
// See README.md for the event order, the scheduling passes and a glossary.
package sim
