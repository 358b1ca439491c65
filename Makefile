# storhfs build, demo mount and tests. Run `make help` for the targets.

GO        ?= go
BIN       := bin/storhfs
DEMO_ROOT := demo-data
MNT       := mnt
BENCH_DATA ?= /tmp/storhfs-bench
# Packages with concurrent code run under the race detector.
RACE_PKGS := ./core/... ./fusefs/...

# make difftest: sequences per engine and first seed of the long differential run.
SEQS ?= 1000
SEED ?= 1

.PHONY: help build run test vet bench difftest clean

help:
	@echo "make build            build $(BIN)"
	@echo "make run [ROOT=dir]   mount ROOT (default: a generated demo root in ./$(DEMO_ROOT)) at ./$(MNT); Ctrl-C unmounts"
	@echo "make test             go vet, unit tests (race detector on core and fusefs), integration tests (real mounts)"
	@echo "make bench [BENCH_DATA=dir]  mount vs data dir at 100k records (as root; data cached in BENCH_DATA)"
	@echo "make difftest [SEQS=n] [SEED=s]  n random op sequences per engine (seeds s..s+n-1), replayed by PHP (../shared/oracle) and by our engines"

# The version storhfs --version prints: git describe of a checkout.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/storhfs

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

# Diverging cases are kept under $${TMPDIR:-/tmp}/storhfs-difftest with the command that replays them.
difftest:
	@test -x ../shared/oracle/setup.sh || { echo "difftest needs the PHP oracle at ../shared/oracle"; exit 1; }
	eval "$$(../shared/oracle/setup.sh)" && STORH_DIFF_SEQS=$(SEQS) STORH_DIFF_SEED=$(SEED) \
		$(GO) test -count=1 -timeout 3h -run '^TestDifferential$$' ./core/docstore ./core/seglog ./core/queue

clean:
	rm -rf bin
