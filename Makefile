# Floe's build. `make demo` and `make test` are the two commands the README
# promises work on a fresh machine.

GO        ?= go
BIN       := bin
UDF_DIRS  := $(patsubst %/main.go,%,$(wildcard udfs/*/main.go))
UDF_WASM  := $(foreach d,$(UDF_DIRS),$(d)/$(notdir $(d)).wasm)
DEMO_DIR  := .demo
# The release `floe version` prints: the nearest tag, or the commit, with
# -dirty for uncommitted changes. The commit itself comes from Go's build info.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# make install copies bin/floe to $(GOBIN) when set, else $(PREFIX)/bin.
PREFIX    ?= /usr/local
GOBIN     ?= $(shell $(GO) env GOBIN)
INSTALL_DIR := $(if $(GOBIN),$(GOBIN),$(PREFIX)/bin)

.PHONY: all build install udfs test conformance bench soak demo check proto clean

all: build

build: $(BIN)/floe udfs

$(BIN)/floe: FORCE
	$(GO) build -buildvcs=auto -ldflags "-X main.version=$(VERSION)" -o $@ ./cmd/floe

# Puts floe on the PATH: into $GOBIN if set, else $(PREFIX)/bin
# (make install PREFIX=$$HOME/.local for a user install).
install: $(BIN)/floe
	@mkdir -p $(INSTALL_DIR)
	install -m 0755 $(BIN)/floe $(INSTALL_DIR)/floe
	@echo "installed $(INSTALL_DIR)/floe"; command -v floe >/dev/null || echo "note: $(INSTALL_DIR) is not on your PATH"

# Every operator module is compiled from its SDK sources.
udfs: $(UDF_WASM)

udfs/%.wasm: FORCE
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -o $@ ./$(dir $@)

# The unit packages run under the race detector (it needs cgo, so gcc); the
# system tests run without it: the end-to-end, cluster and fault tests
# under tests/ run real floe processes, and the mini-cluster's tests run
# whole jobs (under -race they alone took 17 of a 22-minute run on 2 cores).
test:
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./sdk/go/... ./udfs/...
	cd sdk/assemblyscript && (test -d node_modules || npm ci --no-audit --no-fund) && npm test --silent
	cd tests/sqloracle && (test -d node_modules || npm ci --no-audit --no-fund)
	cd sdk/rust && RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc /usr/bin/cargo test --offline -q
	sh sdk/c/test/run.sh
	$(GO) test -count=1 -race -timeout 25m $$($(GO) list ./... | grep -v -e '/tests/' -e '/minicluster')
	$(GO) test -count=1 -timeout 20m ./minicluster/... ./tests/...

# The SDK conformance suite alone: every SDK's operators against the same
# scripts (udfs/conformance). make test runs it too.
conformance:
	$(GO) test -count=1 ./udfs/conformance/

# Throughput of Wasm operators against native Go in the same process; writes
# bench-results.json.
bench: build
	$(GO) run ./tests/bench -out bench-results.json

# Long-running stress runs, kept out of `make test`: a word count under
# task-manager kills and rescales for FLOE_SOAK_DURATION (a Go duration),
# checked exactly-once. -v streams its progress; the timeout is the duration
# plus 30 minutes for building, draining and checking.
FLOE_SOAK_DURATION ?= 10m
soak:
	FLOE_SOAK=1 FLOE_SOAK_DURATION=$(FLOE_SOAK_DURATION) $(GO) test -count=1 -v -run Soak \
		-timeout $$(echo $(FLOE_SOAK_DURATION) | awk '{ s = 0; d = $$0; \
			while (match(d, /^[0-9.]+(h|ms|m|s)/)) { t = substr(d, 1, RLENGTH); d = substr(d, RLENGTH + 1); \
				u = t; gsub(/[0-9.]/, "", u); s += t * (u == "h" ? 3600 : u == "m" ? 60 : u == "s" ? 1 : 0.001) } \
			printf "%ds", s + 1800 }') ./tests/cluster/

# Word count over a generated text on the embedded mini-cluster.
demo: build
	@mkdir -p $(DEMO_DIR)
	$(GO) run ./tests/gentext -words 2000000 -seed 1 -o $(DEMO_DIR)/input.txt
	rm -rf $(DEMO_DIR)/out
	$(BIN)/floe run udfs/wordcount/job.yaml --set input=$(DEMO_DIR)/input.txt --set output=$(DEMO_DIR)/out --parallelism 2 --data-dir $(DEMO_DIR)/data
	@echo "--- the ten most frequent words (word,count) from $(DEMO_DIR)/out/part-*:"
	@cat $(DEMO_DIR)/out/part-* | sort -t, -k2,2nr | awk -F, '!seen[$$1]++' | head -10

# Fails when the tree is not as committed code should be: unformatted Go,
# vet findings, an untidy go.mod, generated proto/ code that differs from
# what `make proto` writes (commit the regenerated files), an import that
# crosses a layer (internal/layers), or a docs/cli.md that differs from the
# commands' help (go run ./cmd/floe docs docs regenerates it).
check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1)
	$(GO) vet ./...
	$(GO) mod tidy && git diff --exit-code go.mod go.sum
	$(MAKE) --no-print-directory proto
	@test -z "$$(git status --porcelain -- proto/)" || (git status --short -- proto/; git diff --stat -- proto/; echo "proto/ differs from what make proto generates: commit the regenerated code"; exit 1)
	$(GO) test -count=1 ./internal/layers
	$(GO) test -count=1 -run TestCLIDocsUpToDate ./cmd/floe

clean:
	rm -rf $(BIN) $(DEMO_DIR) $(UDF_WASM) bench-results.json udfs/conformance/rust/target

FORCE:

# Regenerates proto/ with pinned tools: protoc from Debian's
# protobuf-compiler, protoc-gen-go and protoc-gen-go-grpc at the versions
# below. Each version is written into the generated files, so another
# version would show as a diff in make check.
PROTOC_VERSION             := 3.21.12
PROTOC_GEN_GO_VERSION      := v1.36.10
PROTOC_GEN_GO_GRPC_VERSION := v1.5.1
GOBIN_DIR := $(CURDIR)/.cache/bin
proto:
	@command -v protoc >/dev/null || (apt-get update -qq && apt-get install -y -qq protobuf-compiler)
	@protoc --version | grep -qx 'libprotoc $(PROTOC_VERSION)' || (echo "make proto needs protoc $(PROTOC_VERSION) (Debian's protobuf-compiler), found: $$(protoc --version)"; exit 1)
	GOBIN=$(GOBIN_DIR) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(GOBIN_DIR) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	PATH=$(GOBIN_DIR):$$PATH protoc -I proto --go_out=proto --go_opt=paths=source_relative \
		--go-grpc_out=proto --go-grpc_opt=paths=source_relative proto/floe/v1/*.proto
