// Package ingest reads raw scheduler accounting output and writes Mirage's
// canonical trace table (package trace).
//
// Supported inputs, detected from their first bytes (Detect) or forced with
// Options.Format:
//
//	sacct --parsable2 / --parsable   header line, '|' (or TAB) separated
//	sacct --json                     Slurm 22.05, data_parser v0.0.38
//	mirage                           the Mirage artifact's ls6-a100.log
//	swf                              Standard Workload Format v2.2
//
// Inputs may be gzip- or zstd-compressed (by magic bytes). Fixed-width
// sacct output truncates values and is refused with ErrFixedWidth.
//
// Every input row ends in exactly one place: a job in the output, a step
// folded into its job, or a line of the quarantine file (JSON lines: file,
// line, field, reason, raw) next to the output. Summary.Balanced checks that
// the counts add up. With Options.Strict the first bad row stops the run
// with a *ParseError. The output and the quarantine file replace earlier
// ones only together, when the run succeeds; an output path that is one of
// the inputs is refused (ErrOutputIsInput), and a run whose every row was
// quarantined fails (ErrNoJobs) unless Options.AllowEmpty.
//
// Text: a kept string field with invalid UTF-8 or a control character has
// them replaced with U+FFFD and its job flagged RepairInvalidText (counted in
// Summary.Repaired); with Strict it is a *ParseError wrapping ErrBadText. A
// UTF-8 byte-order mark is dropped. Times outside the years MinYear to
// MaxYear (1970-2100) are ErrBadTime.
//
// Times without a zone are local to the cluster: Options.Location converts
// them to UTC. Local times that occur twice (the hour after a DST fall-back)
// are resolved by the row's own constraints (Submit <= Start <= End,
// ElapsedRaw, the time limit) and otherwise take the first occurrence;
// local times that do not exist (the skipped spring-forward hour) are
// quarantined.
package ingest
