# storhfs build, demo mount and tests. Run `make help` for the targets.

GO        ?= go
BIN       := bin/storhfs
DEMO_ROOT := demo-data
MNT       := mnt
BENCH_DATA ?= /tmp/storhfs-bench
# Packages with concurrent code run under the race detector.
RACE_PKGS := ./core/... ./fusefs/...

.PHONY: help build run test vet bench bench-engines clean

help:
	@echo "make build            build $(BIN)"
	@echo "make run [ROOT=dir]   mount ROOT (default: a generated demo root in ./$(DEMO_ROOT)) at ./$(MNT); Ctrl-C unmounts"
	@echo "make test             go vet, unit tests (race detector on core and fusefs), integration tests (real mounts)"
	@echo "make bench [BENCH_DATA=dir]  mount vs data dir at 100k records (as root; data cached in BENCH_DATA)"
	@echo "make bench-engines [BENCH_ENGINES_FLAGS=--quick]  core engines vs PHP storh side by side (needs ../shared/oracle); exits 1 if a row is slower than PHP"

build:
	$(GO) build -o $(BIN) ./cmd/storhfs

run: build
	@set -e; root="$(ROOT)"; \
	if [ -z "$$root" ]; then \
		root=$(DEMO_ROOT); \
		if [ ! -d "$$root" ]; then ./$(BIN) demo "$$root"; fi; \
	fi; \
	mkdir -p $(MNT); \
	exec ./$(BIN) mount "$$root" $(MNT)

vet:
	$(GO) vet ./...

test: vet
	$(GO) test -race -count=1 $(RACE_PKGS)
	$(GO) test -count=1 $$($(GO) list ./... | grep -v -e '/core/' -e '/fusefs$$' -e '/integration$$')
	$(GO) test -count=1 -timeout 10m ./integration/...

bench: build
	$(GO) run ./cmd/storhfs-bench --bin $(BIN) --records 100000 --create 10000 --log-records 500000 --runs 3 --data $(BENCH_DATA)

# The PHP library comes from ../shared/oracle (setup.sh installs php-cli if missing).
bench-engines:
	eval "$$(../shared/oracle/setup.sh)" && $(GO) run ./bench/engines $(BENCH_ENGINES_FLAGS)

clean:
	rm -rf bin
