# Mirage: `make run` sets up and runs the main job on built-in data;
# `make test` sets up and runs every test.

GO       ?= go
BIN      := bin/mirage
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
OUT      ?= out
JOBS     ?= 20000
SEED     ?= 1

.PHONY: all setup build run test bench fuzz lint clean

all: build

## setup: install missing system packages (apt-get) and Go modules; idempotent
setup:
	@scripts/setup.sh

## build: compile bin/mirage
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/mirage

## run: synthesise the default trace, ingest it, print its statistics
run: setup build
	@mkdir -p $(OUT)
	$(BIN) synth --jobs $(JOBS) --seed $(SEED) -o $(OUT)/synth.sacct
	$(BIN) ingest --tz America/Chicago --cluster synth -o $(OUT)/synth.parquet $(OUT)/synth.sacct
	$(BIN) trace stats $(OUT)/synth.parquet
	@echo
	@echo "files:"
	@echo "  synthetic sacct dump  $(OUT)/synth.sacct"
	@echo "  trace table           $(OUT)/synth.parquet"
	@echo "  quarantine            $(OUT)/synth.quarantine.jsonl"

## test: setup, go vet, and all tests
test: setup
	$(GO) vet ./...
	$(GO) test ./...

## bench: throughput and latency figures (Go benchmarks, then whole-command
## ingest of 1M rows on one core and 10M rows on all cores with peak RSS)
bench: setup build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...
	scripts/bench-ingest.sh 1000000 1
	scripts/bench-ingest.sh 10000000

## fuzz: run every fuzz target for FUZZTIME (default 30s each)
FUZZTIME ?= 30s
fuzz:
	@for t in FuzzSacct FuzzMirage FuzzSacctJSON FuzzSWF; do \
		echo "fuzz $$t"; $(GO) test ./ingest -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done

## lint: formatting, vet and staticcheck
lint:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

clean:
	rm -rf bin $(OUT)
