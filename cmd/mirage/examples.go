package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are the Examples section of each command's help, by command
// path; setExamples puts them in place and TestHelp_Examples checks that
// every command has one. They run as written from a checkout (make build
// puts the binary in bin/; the synth study and data/ ship with it).
var examples = map[string]string{
	"mirage": `mirage ingest --tz America/Chicago -o synth.parquet data/synth-500.sacct
mirage trace stats synth.parquet
mirage pipeline run synth -o runs     # every stage of the built-in study, cached
mirage help exit-codes`,
	"mirage ingest": `mirage ingest --tz America/Chicago -o synth.parquet data/synth-500.sacct
mirage ingest --tz America/Chicago -o jan.parquet jan.sacct.gz --json
mirage ingest --start-time 2024-01-01T00:00:00Z --cores-per-node 128 -o swf.parquet trace.swf
mirage ingest --format csv --columns eagle -o eagle.parquet eagle.csv     # NREL Eagle's column names
mirage ingest --columns job_id=JobID,submit_time=Submit,wallclock_req=TimelimitSec -o mine.parquet mine.csv
mirage ingest --keep-current --tz America/Chicago -o synth.parquet data/synth-500.sacct     # nothing to do when it holds this input`,
	"mirage trace":       `mirage trace stats synth.parquet`,
	"mirage trace stats": "mirage trace stats synth.parquet\nmirage trace stats synth.parquet --json | jq .wait_sec",
	"mirage synth": `mirage synth --jobs 20000 --seed 1 -o synth.sacct
mirage synth --partition-nodes 10000 --jobs 1000000 --utilisation 1.2 -o big.sacct`,
	"mirage sim": `mirage sim replay --trace synth.parquet --profile mirage-compat --tz America/Chicago`,
	"mirage sim replay": `mirage sim replay --trace synth.parquet --profile mirage-compat --tz America/Chicago
mirage sim replay --trace ls6.parquet --profile ls6 --from 2023-01-01 --to 2023-02-01`,
	"mirage sim calibrate": `mirage sim calibrate --trace ls6.parquet --from 2022-11-01 --to 2023-03-01 --tz America/Chicago -o ls6-fit.yaml`,
	"mirage sim profile":   `mirage sim profile show ls6 > my.yaml`,
	"mirage sim profile show": `mirage sim profile show ls6
mirage sim profile show my.yaml --json`,
	"mirage sim starts": `mirage sim starts --trace ls6.parquet --profile ls6 --from 2023-03-01 --to 2023-04-01 --runtime-model rt`,
	"mirage features":   `mirage features build --trace synth.parquet --study synth -o train.parquet`,
	"mirage features build": `mirage features build --trace synth.parquet --study synth -o train.parquet
mirage features build --trace synth.parquet --study synth --period validation -o val.parquet
mirage features build --trace mine.parquet --protocol ls6 --start 2024-01-01T00:00:00 --windows 300 --partition-nodes 120 -o train.parquet
mirage features build --trace synth.parquet --study synth --wide -o train-wide.parquet     # the wide_* columns for long waits
mirage features build --trace synth.parquet --study synth --q-time-min 24h -o train-tm.parquet     # Q submitted with --time-min 24h`,
	"mirage train": `mirage train --model forest --samples train.parquet -o forest
mirage train --model xgboost --target interrupt --samples train.parquet --cv 3 -o xgb
mirage train --model xgboost --target stop --stop-horizon 4h --samples train.parquet -o xgb-stop
mirage train --model fixed-lead --samples train.parquet -o lead     # no model: the lead of the policy fixed-lead:lead
mirage train --model dqn --trace synth.parquet --study synth -o dqn`,
	"mirage predict": `mirage predict --model xgb --samples val.parquet -o pred.parquet`,
	"mirage evaluate": `mirage evaluate --trace synth.parquet --study synth --policy reactive,avg,oracle,xgboost:xgb -o eval
mirage evaluate --trace ls6.parquet --protocol ls6-val --policy reactive,slurm-estimate,oracle-cost --sweep -o eval
mirage evaluate --trace synth.parquet --study synth --policy reactive,fixed-lead:lead,xgboost:xgb --real-chains -o eval     # and the trace's own chains
mirage evaluate --trace synth.parquet --study synth --policy reactive,oracle,xgboost:xgb --lifetime 30d --handover 30m -o eval-30d
mirage evaluate --trace synth.parquet --study synth --policy reactive,oracle --q-time-min 24h -o eval-tm`,
	"mirage report": `mirage report --trace synth.parquet eval     # writes eval/report/report.html
mirage report runs/stages/evaluate-KEY`,
	"mirage study": `mirage study show synth
mirage study init --trace mine.parquet -o my.yaml`,
	"mirage study init": `mirage study init --trace mine.parquet -o my.yaml
mirage study init --trace mine.parquet -o my.yaml --models-from synth`,
	"mirage study show": `mirage study show synth
mirage study show my.yaml     # checks it: unknown keys, kinds, policies and durations name their line`,
	"mirage pipeline": `mirage pipeline run synth -o runs
mirage pipeline status synth -o runs`,
	"mirage pipeline run": `mirage pipeline run synth -o runs
mirage pipeline run my.yaml --trace mine.parquet -o runs --jobs 2
mirage pipeline run my.yaml --trace mine.parquet -o runs --force train-xgboost-r`,
	"mirage pipeline status": `mirage pipeline status synth -o runs
mirage pipeline status my.yaml --trace mine.parquet -o runs --json`,
	"mirage pipeline run-stage": `mirage pipeline run-stage evaluate my.yaml -o runs --key-version v1.2.0     # what a Slurm job of pipeline run --executor slurm runs`,
	"mirage analyze": `mirage analyze synth.parquet -o synth-analysis
mirage analyze ls6.parquet --profile ls6 -o ls6-analysis`,
	"mirage advise": `mirage advise --model xgb --job 123456
mirage advise --model xgb --job 123456 --successor next.sbatch --watch --submit`,
	"mirage completion":            "mirage completion bash > ~/.local/share/bash-completion/completions/mirage\nmirage completion zsh > \"${fpath[1]}/_mirage\"",
	"mirage completion bash":       `source <(mirage completion bash)`,
	"mirage completion zsh":        `mirage completion zsh > "${fpath[1]}/_mirage"`,
	"mirage completion fish":       `mirage completion fish > ~/.config/fish/completions/mirage.fish`,
	"mirage completion powershell": `mirage completion powershell | Out-String | Invoke-Expression`,
	"mirage help":                  "mirage help trace stats\nmirage help exit-codes",
	"mirage exit-codes":            "mirage help exit-codes",
}

// setExamples gives every command below (and including) cmd its Example
// from examples, indented as cobra shows it, unless it has one.
func setExamples(cmd *cobra.Command) {
	if ex, ok := examples[cmd.CommandPath()]; ok && cmd.Example == "" {
		cmd.Example = "  " + strings.ReplaceAll(ex, "\n", "\n  ")
	}
	for _, c := range cmd.Commands() {
		setExamples(c)
	}
}
