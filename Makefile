# labgen — see README.md. `make help` lists the targets.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/labgen
# The version a record and labgen.lock name: the commit built (git
# describe), "-dirty" when the tree has changes.
VERSION ?= $(shell git describe --always --dirty --tags 2>/dev/null || echo dev)
LAB   ?= labs/orders
OUT   ?= out/orders
# Tests that need MariaDB, ClickHouse or Chromium skip when those are
# missing unless LABGEN_TEST_SERVERS=require (what CI sets).
export LABGEN_TEST_SERVERS

.PHONY: help demo e2e mutants build render validate test lint golden fuzz deps bench bench-producer bench-native prove clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

demo: ## the main job, no Docker: install what is missing, render the seed lab, bring its native stack up, run all experiments, print the record
	./scripts/demo.sh

e2e: ## CI: every experiment of the labs end to end on a fresh native stack (run --strict --controls: every expectation held, and shown able to fail), down, nothing left behind
	E2E_RUN_FLAGS=--controls ./scripts/e2e.sh labs/orders out/e2e
	E2E_RUN_FLAGS=--controls ./scripts/e2e.sh labs/sensors out/e2e-sensors
	E2E_RUN_FLAGS=--controls ./scripts/e2e.sh labs/orders_pg out/e2e-orders-pg
	E2E_RUN_FLAGS=--controls ./scripts/e2e.sh docs/tutorial/bikes out/e2e-tutorial

mutants: ## the mutation score of LAB on the native stack: every mutant Flink's parser derives from its streaming jobs, run as a control (about a minute each)
	./scripts/mutants.sh $(LAB)

build: ## build bin/labgen
	$(GO) build -ldflags "-X github.com/labgen/labgen/cli.Version=$(VERSION)" -o $(BIN) ./cmd/labgen

render: build ## validate and render the seed lab into out/orders (needs only Go)
	$(BIN) validate $(LAB)
	$(BIN) render $(LAB) -o $(OUT)

validate: build ## validate the seed lab, its variants, the sensors lab, the PostgreSQL lab and the tutorial's lab
	$(BIN) validate $(LAB)
	$(BIN) validate $(LAB) -var order_rate=50 -var payment_delay=10s
	$(BIN) validate $(LAB) -var lakes=false
	$(BIN) validate labs/sensors
	$(BIN) validate labs/orders_pg
	$(BIN) validate docs/tutorial/bikes

lint: build ## gofmt, go vet and labgen fmt -check
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(BIN) fmt -check $(LAB)
	$(BIN) fmt -check labs/sensors
	$(BIN) fmt -check labs/orders_pg
	$(BIN) fmt -check docs/tutorial/bikes

golden: ## rewrite the golden files and generated pages (render, kube, publish, runner, docs/reference.md, docs/cli.md); review the diff like code
	$(GO) test ./render ./render/kube ./publish ./runtime/runner ./docs -update

# A count, not a duration: with -fuzztime 20s Go's fuzzing coordinator can
# fail the target with a bare "context deadline exceeded" when the
# deadline meets a worker mid-input (no input found, none written; seen in
# CI). Minimizing a new input is bounded by count too.
fuzz: ## run the loader's fuzz target for a bounded number of inputs (FUZZTIME, default 20000x: about 20 s)
	$(GO) test ./schemas -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $${FUZZTIME:-20000x} -fuzzminimizetime 200x

test: lint validate ## the test suite: lint, validate, go test ./..., a bounded fuzz run
	$(GO) test -count=1 ./...
	$(MAKE) --no-print-directory fuzz

deps: ## install what the tests need on Debian (run as root): servers, shellcheck, chromium, Go modules
	./scripts/install-deps.sh

bench-producer: ## producer throughput vs plain INSERTs on MariaDB and PostgreSQL, bytes per pending follow-up, lateness at 10,000 pending (throwaway servers)
	LABGEN_TEST_SERVERS=require $(GO) test ./generator -run '^$$' -bench 'ProducerVsInsert|PendingMemory|OnTime' -benchtime 3x -benchmem -timeout 900s

bench: bench-producer ## every benchmark
	$(GO) test ./render -run '^$$' -bench Render -benchmem

prove: build ## run the labs' rendered SQL through Flink's planner and ClickHouse (chdb), Kafka tests on a real broker, and the mutants Flink's parser derives from each streaming job (each planned)
	./prove/prove.sh
	LAB=labs/sensors PROVE_ONLY="flink clickhouse" ./prove/prove.sh
	LAB=labs/orders_pg PROVE_ONLY="flink clickhouse" ./prove/prove.sh
	./prove/flink/mutants-selftest.sh

clean: ## remove build outputs and rendered labs
	rm -rf bin out/*/
