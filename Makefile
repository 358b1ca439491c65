# storhfs build, demo mount and tests. Run `make help` for the targets.

GO        ?= go
BIN       := bin/storhfs
DEMO_ROOT := demo-data
MNT       := mnt
# Packages with concurrent code run under the race detector.
RACE_PKGS := ./core/... ./fusefs/...

.PHONY: help build run test vet bench clean

help:
	@echo "make build            build $(BIN)"
	@echo "make run [ROOT=dir]   mount ROOT (default: a generated demo root in ./$(DEMO_ROOT)) at ./$(MNT); Ctrl-C unmounts"
	@echo "make test             go vet, unit tests (race detector on core and fusefs), integration tests (real mounts)"
	@echo "make bench            benchmarks (not yet)"

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

bench:
	@echo "bench: not yet"

clean:
	rm -rf bin
