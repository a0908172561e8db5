# Mirage: `make run` sets up and runs the main job on built-in data;
# `make test` sets up and runs every test.

GO       ?= go
BIN      := bin/mirage
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
OUT      ?= out

# XGBOOST_PREFIX: link the libxgboost installed under this prefix (for
# example a CUDA build on GPU nodes) instead of the system one; see README
# "GPU nodes".
ifneq ($(XGBOOST_PREFIX),)
export CGO_CFLAGS  := -I$(XGBOOST_PREFIX)/include $(CGO_CFLAGS)
export CGO_LDFLAGS := -L$(XGBOOST_PREFIX)/lib -Wl,-rpath,$(XGBOOST_PREFIX)/lib $(CGO_LDFLAGS)
endif

.PHONY: all help setup build run trace-name ingest-options trace-ingest test bench fuzz lint check-parquet clean

all: build

## help: print these target descriptions (the `## ` lines of this Makefile)
help:
	@sed -n 's/^## \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

## setup: install missing system packages (apt-get) and Go modules; idempotent
setup:
	@scripts/setup.sh

## build: compile bin/mirage
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/mirage

## run: the main job, a cached pipeline (mirage pipeline run) of the built-in
## synthetic study (mirage study show synth): synth + ingest -> features ->
## train forest, xgboost, estimate, estimate-rt and a DQN -> predict ->
## evaluate (baselines, oracle, models, sweeps) -> report; prints
## report.html's path. A second run is all cache hits.
## `make run TRACE=path [TZ=zone] [NODES=n] [START=time] [CORES=n]
## [FORMAT=f] [COLUMNS=map]` ingests your trace into OUT/NAME.parquet, proposes
## a study for it (OUT/NAME.yaml, kept once written: edit it and rerun) and
## runs it. The ingest options: START, an SWF trace's start (RFC 3339, e.g.
## 1996-09-23T12:00:31Z) when its header has no UnixStartTime; CORES, an SWF
## trace's processors per node when its header has no MaxNodes/MaxProcs;
## FORMAT (auto, sacct, sacct-json, mirage, swf, csv); COLUMNS, a CSV export's
## column map (eagle, pm100, or job_id=JobID,...; only from make's command
## line, as the shell's COLUMNS is the terminal width); TZ, the zone of local
## times (default America/Chicago). An OUT/NAME.parquet ingested from the same
## trace file (sha256) with the options given here is kept (ingest
## --keep-current): a hand-run `mirage ingest --start-time ... -o OUT/NAME.parquet`
## survives `make run`; delete it to ingest again.
# TRACE_NAME is the trace file's name without one compression and then one
# format suffix (ingest.TraceName): X-2.1-b1.swf.gz is X-2.1-b1, so traces
# that differ after their first dot do not overwrite each other.
TRACE_FILE = $(notdir $(TRACE))
TRACE_NOZ  = $(if $(filter .gz .zst .zstd .bz2 .xz,$(suffix $(TRACE_FILE))),$(basename $(TRACE_FILE)),$(TRACE_FILE))
TRACE_NAME = $(if $(filter .swf .log .txt .csv .json .sacct .out .parquet,$(suffix $(TRACE_NOZ))),$(basename $(TRACE_NOZ)),$(TRACE_NOZ))
RUN_LOG   ?= --log-level info
# INGEST_OPTS are the ingest options make was given: only these are
# compared with those of an existing OUT/NAME.parquet (--keep-current);
# the defaults (TZ America/Chicago, the cluster named NAME) travel as
# MIRAGE_INGEST_* variables, which are not.
RUN_COLUMNS = $(if $(filter command line,$(origin COLUMNS)),$(COLUMNS))
INGEST_OPTS = $(if $(TZ),--tz "$(TZ)") $(if $(START),--start-time "$(START)") \
  $(if $(CORES),--cores-per-node "$(CORES)") $(if $(FORMAT),--format "$(FORMAT)") \
  $(if $(RUN_COLUMNS),--columns "$(RUN_COLUMNS)")
INGEST_CMD = mkdir -p "$(OUT)" && \
  MIRAGE_INGEST_TZ="$(or $(TZ),America/Chicago)" MIRAGE_INGEST_CLUSTER="$(TRACE_NAME)" \
  $(BIN) ingest --keep-current -o "$(OUT)/$(TRACE_NAME).parquet" "$(TRACE)" $(INGEST_OPTS) $(RUN_LOG)
run: setup build
ifeq ($(TRACE),)
	$(BIN) pipeline run synth -o $(OUT) --jobs 2 $(RUN_LOG)
else
	$(INGEST_CMD)
	@if [ -f "$(OUT)/$(TRACE_NAME).yaml" ]; then echo "run: study $(OUT)/$(TRACE_NAME).yaml (edit it and rerun; delete it to propose a new one)"; \
	else $(BIN) study init --trace "$(OUT)/$(TRACE_NAME).parquet" -o "$(OUT)/$(TRACE_NAME).yaml" --name "$(TRACE_NAME)" \
	  --models-from synth $(if $(NODES),--partition-nodes $(NODES)) $(RUN_LOG); fi
	$(BIN) pipeline run "$(OUT)/$(TRACE_NAME).yaml" --trace "$(OUT)/$(TRACE_NAME).parquet" -o "$(OUT)" --jobs 2 $(RUN_LOG)
endif

## trace-name: print the name `make run TRACE=...` gives the trace's outputs
trace-name:
	@echo "$(TRACE_NAME)"

# ingest-options: print the ingest options `make run TRACE=...` passes;
# trace-ingest: only make run's ingest step, with the BIN given (for the
# Makefile's tests)
ingest-options:
	@echo $(INGEST_OPTS)
trace-ingest:
	$(if $(TRACE),,$(error trace-ingest: TRACE=path is required))
	$(INGEST_CMD)

## test: setup (with chromium for the page tests), go vet, and all tests
test:
	@scripts/setup.sh --with-browser
	$(GO) vet ./...
	$(GO) test ./...

## bench: throughput and latency figures (Go benchmarks, then whole-command
## ingest of 1M rows on one core and 10M rows on all cores with peak RSS,
## features build on the LS6 decision grid (within 3 minutes on 2 cores), the
## simulator at 1,000-10,000 nodes (replays of 10 k-1 M jobs; features build
## and evaluate per window on a 1,000-node study against LS6), DQN
## training on the LS6 presets, each within 10 minutes on 2 cores, the peak
## RSS of a 5M-job replay in bytes per job, and the
## peak RSS of ingest on a 15 MB line of '|' and a 200 MB JSON job name;
## mirage analyze of 10M jobs on 2 cores: within 2 minutes, under 1 GB)
bench: setup build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...
	scripts/bench-ingest.sh 1000000 1
	scripts/bench-ingest.sh 10000000
	scripts/bench-analyze.sh 10000000 2
	scripts/bench-features.sh
	scripts/bench-scale.sh
	scripts/bench-scale-study.sh
	scripts/bench-replay-memory.sh 5000000
	scripts/bench-trace-stats-memory.sh 10000000
	scripts/bench-dqn.sh
	scripts/bench-calibrate.sh
	scripts/bench-hardening.sh $(BIN)

## fuzz: run every fuzz target of the module (found by grep: a new one is
## included without being listed) for FUZZTIME each (default 30s), stop on
## the first crash, and print each target's executions; FUZZ_MIN_EXECS=N
## also fails a target below N executions
FUZZTIME ?= 30s
fuzz:
	GO="$(GO)" FUZZTIME="$(FUZZTIME)" scripts/fuzz.sh

## lint: formatting, vet and staticcheck
lint:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

## check-parquet: read the LS6 trace and training samples with DuckDB (an
## independent reader; needs ../shared and npm), then the output of every
## accepted input of the malformed-input corpus (ingest/testdata/bad), every
## column of every row, and both kinds of pipeline shard files. scripts/duckdb.sh installs DuckDB's Node.js package
## (@duckdb/node-api) once with npm into ~/.cache/mirage-duckdb.
check-parquet: build
	@mkdir -p $(OUT)
	$(BIN) ingest --tz America/Chicago --cluster ls6 -o $(OUT)/ls6.parquet ../shared/traces/ls6-a100.log --log-level error >/dev/null
	$(BIN) features build --trace $(OUT)/ls6.parquet --protocol mirage-ls6 -o $(OUT)/train.parquet --log-level error >/dev/null
	scripts/duckdb.sh \
	  "SELECT count(*) AS jobs, count(DISTINCT uid) AS users, min(submit) AS first_submit, quantile_cont(epoch(start) - epoch(submit), 0.5) AS wait_p50_s, count(*) FILTER (WHERE epoch(\"end\") - epoch(start) >= timelimit_sec) AS at_limit FROM '$(OUT)/ls6.parquet'" \
	  "SELECT count(*) AS samples, count(*) FILTER (WHERE label_r_sec > 0) AS interrupted FROM '$(OUT)/train.parquet'" \
	  "SELECT key::VARCHAR AS key FROM parquet_kv_metadata('$(OUT)/train.parquet')"
	scripts/duckdb.sh "SELECT 1 AS duckdb_ready" >/dev/null
	MIRAGE_DUCKDB_REQUIRED=1 $(GO) test -count=1 -run '^TestIngest_BadCorpus$$' -v ./cmd/mirage >$(OUT)/bad-corpus.log 2>&1 || { tail -50 $(OUT)/bad-corpus.log; exit 1; }
	@grep 'DuckDB read the' $(OUT)/bad-corpus.log
	MIRAGE_DUCKDB_REQUIRED=1 $(GO) test -count=1 -run '^TestShardFile_DuckDB$$' ./pipelines

## check-report: open the `make run` report in headless Chromium (Debian
## chromium, installed with apt-get when missing), write PNG screenshots of
## the whole page to OUT/check-report and fail on console errors or broken
## images
check-report: run
	@[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || { \
	  echo "check-report: installing chromium (apt-get)"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; }
	@page=$$($(BIN) pipeline run synth -o $(OUT) --jobs 2 --log-level error | tail -n 1); \
	  test -f "$$page" || { echo "check-report: no report.html from the pipeline (got '$$page')"; exit 1; }; \
	  $(GO) run ./internal/browsercheck/cmd/browsercheck -o $(OUT)/check-report "$$page"

clean:
	rm -rf bin $(OUT)
