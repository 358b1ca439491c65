# storhfs build, demo mount and tests. Run `make help` for the targets.

GO        ?= go
BIN       := bin/storhfs
DEMO_ROOT := demo-data
MNT       := mnt
BENCH_DATA ?= /tmp/storhfs-bench
# Packages with concurrent code run under the race detector.
RACE_PKGS := ./core/... ./fusefs/... ./internal/fuseuring ./internal/lockedbuf

# make difftest: sequences per engine and first seed of the long differential run.
SEQS ?= 1000
SEED ?= 1

.PHONY: help build run test vet bench bench-engines difftest clean install deb

help:
	@echo "make build            build $(BIN)"
	@echo "make run [ROOT=dir]   mount ROOT (default: a generated demo root in ./$(DEMO_ROOT)) at ./$(MNT); Ctrl-C unmounts"
	@echo "make test             go vet, unit tests (race detector on core and fusefs), integration tests (real mounts, over /dev/fuse and over io_uring, and without OPEN)"
	@echo "make bench [BENCH_DATA=dir] [BENCH_FLAGS=--io-uring]  mount vs data dir at 100k records (as root; data cached in BENCH_DATA)"
	@echo "make bench-engines [BENCH_ENGINES_FLAGS=--quick]  core engines vs PHP storh side by side (needs ../shared/oracle); exits 1 if a row is slower than PHP"
	@echo "make difftest [SEQS=n] [SEED=s]  n random op sequences per engine (seeds s..s+n-1), replayed by PHP (../shared/oracle) and by our engines"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=dir]  binary, mount(8) helper link, man page, completions, systemd unit"
	@echo "make deb              bin/storhfs_VERSION_ARCH.deb of the same (PREFIX=/usr), built with dpkg-deb"

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
	# The engines and shard/ are portable (the mount is Linux-only): keep them building for macOS.
	GOOS=darwin $(GO) build ./core/... ./shard/...

test: vet
	$(GO) test -race -count=1 $(RACE_PKGS)
	# Allocation counts are not exact under the race detector: check them without it.
	$(GO) test -count=1 -run 'Allocations' $(RACE_PKGS)
	$(GO) test -count=1 $$($(GO) list ./... | grep -v -e '/core/' -e '/fusefs$$' -e '/integration$$' -e '/internal/fuseuring$$' -e '/internal/lockedbuf$$')
	$(GO) test -count=1 -timeout 20m ./integration/...
	# Again with every mount serving over io_uring (--io-uring), where the kernel has it.
	@if [ -w /sys/module/fuse/parameters/enable_uring ]; then \
		echo "STORHFS_TEST_IO_URING=1 $(GO) test -count=1 -timeout 20m ./integration/..."; \
		STORHFS_TEST_IO_URING=1 $(GO) test -count=1 -timeout 20m ./integration/...; \
	else \
		echo "no io_uring pass: needs a kernel with FUSE over io_uring and its switch writable (root): /sys/module/fuse/parameters/enable_uring"; \
	fi
	# Again with every mount answering no OPEN (--no-open), over io_uring where the kernel has it.
	@uring=; if [ -w /sys/module/fuse/parameters/enable_uring ]; then uring=1; fi; \
	echo "STORHFS_TEST_NO_OPEN=1 STORHFS_TEST_IO_URING=$$uring $(GO) test -count=1 -timeout 20m ./integration/..."; \
	STORHFS_TEST_NO_OPEN=1 STORHFS_TEST_IO_URING=$$uring $(GO) test -count=1 -timeout 20m ./integration/...

bench: build
	$(GO) run ./cmd/storhfs-bench --bin $(BIN) --records 100000 --create 10000 --log-records 500000 --runs 3 --data $(BENCH_DATA) $(BENCH_FLAGS)

# Diverging cases are kept under $${TMPDIR:-/tmp}/storhfs-difftest with the command that replays them.
difftest:
	@test -x ../shared/oracle/setup.sh || { echo "difftest needs the PHP oracle at ../shared/oracle"; exit 1; }
	eval "$$(../shared/oracle/setup.sh)" && STORH_DIFF_SEQS=$(SEQS) STORH_DIFF_SEED=$(SEED) \
		$(GO) test -count=1 -timeout 3h -run '^TestDifferential$$' ./core/docstore ./core/seglog ./core/queue

# make install: what `storhfs` needs beside itself. mount(8) (libmount)
# looks for helpers only in /sbin, /sbin/fs.d and /sbin/fs, so the
# mount.fuse.storhfs link goes to HELPERDIR, not below PREFIX; the unit's
# /usr/local/bin/storhfs is rewritten to BINDIR.
PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    := $(PREFIX)/bin
HELPERDIR ?= /sbin
MANDIR    := $(PREFIX)/share/man/man1
UNITDIR   := $(PREFIX)/lib/systemd/system

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(HELPERDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/storhfs
	ln -sf $(BINDIR)/storhfs $(DESTDIR)$(HELPERDIR)/mount.fuse.storhfs
	$(abspath $(BIN)) man > $(DESTDIR)$(MANDIR)/storhfs.1
	$(abspath $(BIN)) completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/storhfs
	$(abspath $(BIN)) completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_storhfs
	$(abspath $(BIN)) completion fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/storhfs.fish
	sed 's|/usr/local/bin/storhfs|$(BINDIR)/storhfs|g' contrib/storhfs@.service > $(DESTDIR)$(UNITDIR)/storhfs@.service
	chmod 0644 $(DESTDIR)$(MANDIR)/storhfs.1 $(DESTDIR)$(UNITDIR)/storhfs@.service \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/storhfs \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_storhfs \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/storhfs.fish

# make deb: the install above with PREFIX=/usr (the helper in /usr/sbin,
# which is /sbin on merged-/usr systems). Debian versions start with a
# digit and allow [A-Za-z0-9.+~]: v1.2-3-gabc becomes 1.2+3+gabc, an
# untagged commit 0~git041640c (older than any release).
DEB_VERSION := $(shell echo '$(VERSION)' | sed -e 's/^v//' -e 's/^\([0-9a-f]\{7,\}\(-dirty\)\{0,1\}\)$$/0~git\1/' -e 's/^\([^0-9]\)/0~\1/' -e 's/-/+/g' -e 's/[^A-Za-z0-9.+~]/./g')
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || $(GO) env GOARCH)
DEB         := bin/storhfs_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_ROOT    := bin/deb-root

deb:
	@command -v dpkg-deb >/dev/null || { echo "make deb needs dpkg-deb (apt-get install dpkg)"; exit 1; }
	rm -rf $(DEB_ROOT)
	$(MAKE) install PREFIX=/usr HELPERDIR=/usr/sbin DESTDIR=$(abspath $(DEB_ROOT))
	install -d $(DEB_ROOT)/DEBIAN
	printf '%s\n' \
		'Package: storhfs' \
		'Version: $(DEB_VERSION)' \
		'Architecture: $(DEB_ARCH)' \
		'Maintainer: storhfs developers <storhfs@localhost>' \
		'Depends: fuse3' \
		'Section: utils' \
		'Priority: optional' \
		'Description: FUSE file system for storh data directories' \
		' storhfs mounts a storh storage root (a PHP record store) as files:' \
		' one JSONC file per record, logs and queues as read-only views.' \
		> $(DEB_ROOT)/DEBIAN/control
	dpkg-deb -Zgzip --root-owner-group --build $(DEB_ROOT) $(DEB)
	@echo "built $(DEB)"

# The PHP library comes from ../shared/oracle (setup.sh installs php-cli if missing).
bench-engines:
	eval "$$(../shared/oracle/setup.sh)" && $(GO) run ./bench/engines $(BENCH_ENGINES_FLAGS)

clean:
	rm -rf bin
