// Package synth generates synthetic Slurm job traces: deterministic,
// streaming, and shaped like the LS6 A100 trace of the Mirage artifact
// (reference/mirage-artifact.md, section 10) without containing any of it.
// The output is SYNTHETIC DATA: no job, user, account or time in it comes
// from a real cluster. It is the built-in default data of `make run` and
// the source of large benchmark inputs.
//
// WriteSacct writes `sacct --parsable2` text (SacctHeader's columns) that
// package ingest reads back; WriteSWF writes the same jobs in the Standard
// Workload Format v2.2. Both stream: memory does not grow with
// Options.Jobs. Equal Options give byte-identical output on a given
// GOARCH: all randomness comes from one math/rand/v2 PCG source seeded with
// Options.Seed, nothing reads the clock, and no map order reaches the
// output. (Floating-point library functions may round differently on
// other architectures, which can change a few values.)
//
// # Cluster
//
// One whole-node GPU partition, "gpu-a100", of Options.Nodes nodes (88 by
// default, as the artifact simulates) with CoresPerNode (128) CPUs,
// GPUsPerNode (3) GPUs and 250 GiB of memory each. Every job gets whole
// nodes: NCPUS = 128 * NNodes, gres/gpu = 3 * NNodes.
//
// # Model
//
// Arrivals. Bursts arrive as a non-homogeneous Poisson process (sampled by
// thinning) whose rate follows a weekly cycle in Options.Location: within a
// day 1 + 0.6 cos(2 pi (h - 15) / 24), peaking at 15:00, times a weekday
// weight (Tuesday and Wednesday 1.15 down to Saturday 0.65). The mean rate
// is chosen so that the expected node-seconds submitted per second equal
// Options.Utilisation * Options.Nodes; the expectation is computed in
// closed form from the distributions below and the drawn user population.
// The first job is submitted at Options.Start.
//
// Bursts. A burst is one user's submissions: 1 % are a job array of 2..20
// one-node tasks with one Submit (JobID N_T; the tasks' JobIDRaw are N+1,
// N+2, ..., and the last task gets N, as Slurm does); of the rest, 60 % are
// one job and 40 % are 2 + floor(Exp(3)) jobs, each submitted 1 +
// floor(Exp(15)) seconds after the previous one, repeating the first job's
// limit, size, name and account with probability 0.85. JobIDs grow by 1..4
// per job (other partitions share Slurm's counter).
//
// Users. 300 users with Zipf-like activity, p(rank k) ~ (k + 3)^-1.1 (the
// most active submits about 8 % of the bursts); each has one or two
// accounts (of 60 projects), two job names, a memory request style (250G,
// 250000M, 64G, 128G or 200G per node) and a preferred time limit and node
// count, used for 50 % and 35 % of their jobs. Preferences are assigned so
// that the activity-weighted mix matches the global mixes below even though
// a few users dominate.
//
// Size. Node counts 1 (79.5 %), 2 (7.2 %), 3 (3.4 %), 4 (7.2 %), 6, 8, 12,
// 16 (1.1 %), 32 and 64 (0.02 %), capped at Options.Nodes (LS6: 79.5 % one
// node).
//
// Time limits. A discrete mix of 25 values from 5 minutes to 5 days: 48 h
// 23.8 %, 30 min 9.9 %, 1 h 8.4 %, 2 h 8.3 %, 24 h 6.6 %, 90 min 5.4 %, ...
// (LS6: p10 30 min, p25 1 h, median 5 h, p75 36 h, p90 48 h, mean 1009
// min). Printed as [D-]HH:MM:SS and minutes (TimelimitRaw).
//
// Outcomes. 13 % of jobs are cancelled while pending (LS6: 13.4 %
// zero-length jobs): Start None, End the cancel time, 240 s * exp(2.5 Z)
// after Submit (at most 3 days); 40 % of them (and those that would have
// started at once) were never eligible (Eligible Unknown, a dependency that
// never resolved); the others are cancelled before the scheduler would
// have started them. The rest start, as:
//
//	TIMEOUT              18 %  run limit + 1 + floor(Exp(8)) s (LS6: 15.7 % of all jobs at the limit, 7 s late)
//	COMPLETED, short     35 %  run = limit * r, r log-normal, median 0.01, sigma 2.0, r < 1
//	COMPLETED, long      28.7% median 0.5, sigma 0.6
//	FAILED               12 %  median 0.003, sigma 2.5; exit 1:0, 127:0, 2:0, ... (LS6 mix)
//	CANCELLED by UID      5 %  median 0.15, sigma 1.5; exit 0:15
//	OUT_OF_MEMORY         1 %  median 0.02, sigma 2.0; exit 0:125
//	NODE_FAIL           0.3 %  median 0.2, sigma 1.5
//
// Cancellations are by the job's owner, or by UID 0 for 5 %. 4 % of started
// jobs wait for a dependency: Eligible = Submit + Exp(30 min).
//
// Scheduling. Jobs are placed in submit order by a whole-node scheduler
// that knows run times: a job takes the nodes that free up first and starts
// when the last of them is free (see type nodes), plus, for 80 % of jobs, a
// scheduling delay of floor(Exp(15)) s. This is FCFS with a limited
// backfill (small jobs pass a large job waiting for nodes, on nodes it did
// not take) in O(n log Nodes) per job of n nodes. Since a job's start is
// fixed when it is submitted, output streams in JobID order, and queues
// form when load runs above capacity (weekday afternoons, bursts of long
// jobs).
//
// Stats reports what was generated, including the achieved utilisation
// (busy node-seconds over Nodes times the span from the first submit to the
// last end of a started job).
//
// # Measured (seed 1, 88 nodes, target utilisation 0.7)
//
// 1,000,000 jobs (2022-11 .. 2039): 80.5 % one node, 15.6 % TIMEOUT, 13.0 %
// cancelled pending, 4.4 % array tasks, utilisation 0.705; limit p50 5 h,
// p75 36 h; wait p50 20 s, p75 2.9 h, p90 15.2 h, p99 54 h, mean 4.5 h
// (LS6: 25 s, 1.3 h, 11.9 h, 48 h, 4.1 h); run time of started jobs p50
// 30 min, mean 6.0 h. 20,000 jobs (the first 17 weeks): 80.6 % one node,
// 15.7 % TIMEOUT, 13.1 % cancelled pending, utilisation 0.648, wait p50
// 12 s, p90 7.7 h (mirage trace stats; TestWriteSacct_ParseBack's log).
//
// Bursts overlap in time: each has its own next submit time, and the jobs
// are written in submit order across them, so the arrival rate scales with
// Nodes. On 10,000 nodes, 1,000,000 jobs reach utilisation 0.671 at a
// target of 0.7 and 0.932 at 1.2 (overloaded: mean wait 71 h).
//
// Spans grow with Jobs / Nodes: about 170 jobs a day on 88 nodes, so 10M
// jobs on 88 nodes reach the 2180s; raise Nodes for large inputs with
// realistic dates. Options that could pass the year 9999 are refused.
package synth
