// Package pipelines describes an experiment once, as a study, for every
// stage: the trace and its zone, the simulated partition, the service
// chains, the training and validation periods, the decision grid and the
// overlap budget.
//
// A Study is read from YAML (Load, with line numbers in errors), JSON or
// TOML; unknown fields are errors naming the file and the field.
// Builtin returns the studies built into mirage (ls6, mirage-ls6: the LS6
// presets as study files; synth: make run's, on a synthetic trace its
// ingest stage generates), Resolve a file or a built-in name.
// Study.Protocols gives the features protocols of both periods, exactly
// the presets' for the built-in studies; Study.CheckTrace refuses a trace
// ingested in another zone than the study's. Propose proposes a study for
// any trace (mirage study init): its zone, its peak busy nodes, periods
// 70/30 in time with a window's gap; it refuses dates relative to 1970.
//
// Run (mirage pipeline run) runs a study's stages in order: ingest of
// trace.inputs or trace.synth (unless given a Parquet trace), features of
// the training period, each model (the tree models and estimates on those
// features, the DQN in the simulator; RunOptions.Jobs at once), with
// predictions the validation period's features and the models' predictions
// on them, the evaluation on the validation period, the report. Each
// stage's key is the sha256 of its name, the version, its part of the
// study and its inputs' keys; its directory OUT/stages/NAME-KEY holds its
// outputs and a meta.json written last, so only stages whose inputs
// changed, or that never finished, run; a finished stage whose files no
// longer match its meta.json (cache.go) is redone. A pipeline run holds
// a lock on OUT, and each stage's run a lock on its stage (lock.go). The
// local executor runs them in this process; the Slurm executor
// (NewSlurmExecutor) submits each as an sbatch job.
//
// Fields, with units: docs/study.md. Glossary: README.md.
package pipelines
