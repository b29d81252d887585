# Hotspot Helper for Linux — common tasks. `make help` lists them.
SWIFT ?= swift

.PHONY: help deps build-deps demo-deps loaded-deps build test test-loaded test-fallback bench bench-hops demo fuzz fuzz-runs fuzz-libfuzzer clean release install uninstall deb load soak bench-report lab lab-bench order-file

help:
	@echo "make deps    install the Debian packages the build, the tests and the lab need (root; make demo and make build install only their own)"
	@echo "make build   build everything (debug)"
	@echo "make test    run the whole test suite (unit, private-bus and mock NetworkManager tests, the release .deb: signals, ICU, lintian; then the lab), and print each step's time"
	@echo "make test-loaded  the Swift tests while stress-ng keeps every core busy: the suite must not depend on the machine's speed"
	@echo "make test-fallback  the Swift tests built with the platform's executor instead of the programs' own (CI runs both)"
	@echo "make lab     the real-NetworkManager lab: QEMU guests, simulated radios, real NM (root; docs/LAB.md)"
	@echo "make lab-releases  the lab's sign-in scenarios on NetworkManager 1.52 (Debian 13) and 1.58 (forky): guests on debootstrap roots, the .deb installed by apt (root)"
	@echo "make lab-bench  the lab's figures: ACTIVATED -> signed in -> connectivity full, with and without 50 ms netem"
	@echo "make demo    the daemon against a simulated NetworkManager and an example helper, live"
	@echo "make bench   run the benchmarks in release mode and print figures and ratios"
	@echo "make bench-hops  where a join's time goes: every message of 300 joins traced in the daemon and the benchmark (release)"
	@echo "make fuzz    the built-in fuzz driver on every target (FUZZ_SECONDS each, default 30)"
	@echo "make fuzz-runs  every fuzz target for FUZZ_RUNS executions (default 1000000), release build, executions/s"
	@echo "make fuzz-libfuzzer  coverage-guided fuzzing with libFuzzer + ASan (FUZZ_SECONDS each, default 60)"
	@echo "make load    signal storm and 100+ helpers against the daemon (release): lag, memory, fds, threads"
	@echo "make soak    1000 joins, click-through sign-ins and leaves, checking for leaks (CYCLES=N)"
	@echo "make bench-report  every benchmark, load and a short soak (release), in one table"
	@echo "make release build hotspot-helper, the one binary behind hotspot-helperd, hotspotctl and hotspot-helper-agent (release, Swift runtime linked in)"
	@echo "make install install them and every system file (DESTDIR=, PREFIX=/usr; SKIP_BUILD=1 uses BUILT_PRODUCTS as is)"
	@echo "make deb     build hotspot-helper_VERSION_ARCH.deb from the tree (dpkg-deb; lintian if installed)"
	@echo "make order-file  measure the code the daemon runs (callgrind; needs valgrind) and rewrite packaging/hotspot-helper.order"

# What each command installs (scripts/install-deps.sh says why each package is there): the
# demo's and the build's few packages, or everything the tests use, the lab's included.
deps:
	./scripts/install-deps.sh test

build-deps:
	./scripts/install-deps.sh build

demo-deps:
	./scripts/install-deps.sh demo

loaded-deps:
	./scripts/install-deps.sh loaded

build: build-deps
	$(SWIFT) build

# The tests also run against the release build the .deb packages: the release
# signal tests, the ICU check and lintian (ReleaseTests) read debian-build/, so they run once
# `make deb` has made it; the other Swift tests run while it builds (the suite does not depend on
# the machine's speed, and two cores do both sooner than one after the other). Each step is
# timed; the table comes at the end, failed or not (scripts/timed-steps.sh). A failed build
# stops the rest; a failed step otherwise does not.
# The tests that read debian-build/: they run once the background step has written it (the Shell
# tests in the Debian 13 and forky roots would otherwise make a .deb of their own into the same
# directory at the same time, and one of the two packages came out truncated).
DEB_TESTS = ReleaseTests|GnomeShellRootTests
test: deps
	./scripts/timed-steps.sh "make test" \
	  '!build (debug, with tests)' '$(SWIFT) build --build-tests' \
	  '&!release build and .deb' '$(MAKE) --no-print-directory deb NO_LINTIAN=1' \
	  'Swift tests (all but those of the .deb)' 'SWIFT="$(SWIFT)" ./scripts/swift-test.sh --skip "$(DEB_TESTS)"' \
	  'Swift tests of the .deb (release build; Shell 48 and 50 with it installed)' 'SWIFT="$(SWIFT)" SWIFT_TEST_LOG=.build/swift-test-release.log ./scripts/swift-test.sh --filter "$(DEB_TESTS)"' \
	  'fuzz ($(or $(FUZZ_SECONDS),3) s a target)' '.build/debug/hotspot-fuzz --seconds $(or $(FUZZ_SECONDS),3)' \
	  'lab (real NetworkManager, QEMU)' './Tests/Lab/run-lab'

# The Swift tests on a machine kept busy: stress-ng runs a CPU hog on every core (LOAD_CPUS, by
# default all of them) for at most LOAD_SECONDS, started before the tests and stopped after them
# by scripts/with-cpu-load.sh. No test may depend on how fast the machine is: a wait ends at its
# event, and its limit is a safety net (SafetyNet.wait, docs/TESTING.md).
LOAD_SECONDS ?= 1800
test-loaded: loaded-deps
	./scripts/timed-steps.sh "make test-loaded" \
	  '!build (debug, with tests)' '$(SWIFT) build --build-tests' \
	  'Swift tests, every core busy' 'LOAD_SECONDS=$(LOAD_SECONDS) ./scripts/with-cpu-load.sh env SWIFT="$(SWIFT)" SWIFT_TEST_LOG=.build/swift-test-loaded.log ./scripts/swift-test.sh'

# The programs' own global executor is a build-time option (the CustomGlobalExecutor trait, on by
# default): the same tests built without it, on the platform's executor.
# Two tests are left out there: on that build the flapping portal's checks never land in its
# hanging half, and the fresh-verdict test once waited 20 s for a check behind a blackholed
# RFC 8908 API (passed in the other runs; neither understood yet: docs/ARCHITECTURE.md, "Where tasks run").
test-fallback: deps
	$(SWIFT) build --build-tests --disable-default-traits --scratch-path .build-fallback
	SWIFT="$(SWIFT)" SWIFT_TEST_LOG=.build-fallback/swift-test.log ./scripts/swift-test.sh --disable-default-traits --scratch-path .build-fallback \
	  --skip aFlappingPortalStaysAPortal --skip aFreshVerdictComesFromACheckStartedAfterItWasAskedFor

fuzz: deps
	$(SWIFT) build --product hotspot-fuzz
	.build/debug/hotspot-fuzz --seconds $${FUZZ_SECONDS:-30}

# Every target for FUZZ_RUNS executions (default 1,000,000) in release mode: the figures (executions
# per second per target) are a benchmark, not part of make test.
fuzz-runs: deps
	$(SWIFT) build -c release --product hotspot-fuzz
	.build/release/hotspot-fuzz --runs $${FUZZ_RUNS:-1000000}

fuzz-libfuzzer: deps
	./scripts/fuzz.sh

bench: deps
	$(SWIFT) build -c release
	.build/release/dbus-benchmark
	.build/release/codec-benchmark
	.build/release/daemon-benchmark
	.build/release/hotspot-portal-sim benchmark
	.build/release/profiles-benchmark

bench-hops: deps
	$(SWIFT) build -c release --product hotspot-helperd
	$(SWIFT) build -c release --product daemon-benchmark
	.build/release/daemon-benchmark --joins 300 --hops

# ---- The real-NetworkManager lab (docs/LAB.md) ---------------------------------------
# Boots QEMU guests (root only; skipped with the reason otherwise). LAB_ARGS: e.g. --keep, --only NAME.
lab: deps
	$(SWIFT) build
	./Tests/Lab/run-lab $(LAB_ARGS)

lab-bench: deps
	$(SWIFT) build
	./Tests/Lab/run-lab --bench $(LAB_ARGS)

# The sign-in scenarios on today's NetworkManager: 1.52 in a Debian 13 root, 1.58 in a
# forky root (scripts/test-root.sh makes and caches them), each with the release .deb from
# `make deb` installed there with apt (made again first, about 20 s when the release build is up
# to date: a package left from an older tree would test that tree). Not in `make test` (its 20
# minutes); CI runs it after it.
LAB_RELEASES ?= trixie forky
.PHONY: lab-releases
lab-releases: deps
	$(SWIFT) build
	$(MAKE) --no-print-directory deb NO_LINTIAN=1
	./Tests/Lab/run-lab $(foreach r,$(LAB_RELEASES),--nm-release $(r)) $(LAB_ARGS)

# ---- Load, soak and the benchmark report ---------------------------------------------
# BENCH_SCRATCH: the build directory (release products in BENCH_SCRATCH/release).
BENCH_SCRATCH ?= .build
CYCLES ?= 1000
SOAK_CYCLES ?= 100

load: deps
	$(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH)
	$(BENCH_SCRATCH)/release/hotspot-stress load

soak: deps
	$(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH)
	$(BENCH_SCRATCH)/release/hotspot-stress soak --cycles $(CYCLES)

bench-report: deps deb
	$(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH)
	$(BENCH_SCRATCH)/release/bench-report --soak-cycles $(SOAK_CYCLES)

# DEMO_SCRATCH: the build directory; CI gives it one of its own, so the demo is built from
# nothing, as on a fresh clone, and a program it needs but does not build cannot hide.
DEMO_SCRATCH ?= .build
DEMO_PRODUCTS = hotspot-helperd hotspot-example-helper hotspot-portal-sim hotspot-demo
demo: demo-deps
	for p in $(DEMO_PRODUCTS); do $(SWIFT) build --scratch-path $(DEMO_SCRATCH) --product $$p || exit 1; done
	$(DEMO_SCRATCH)/debug/hotspot-demo

clean:
	$(SWIFT) package clean

# ---- Desktop and distribution: release binaries, install, .deb ----------------------
# Paths are Debian's (see docs/ and the README's "Installing"); override any of them.
VERSION ?= 0.2.0
PREFIX ?= /usr
DESTDIR ?=
SYSCONFDIR ?= /etc
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/hotspot-helper
SYSTEMDSYSTEMUNITDIR ?= /lib/systemd/system
SYSTEMDUSERUNITDIR ?= $(PREFIX)/lib/systemd/user
DBUSDIR ?= $(DATADIR)/dbus-1
POLKITDIR ?= $(DATADIR)/polkit-1/actions
# NetworkManager's own pre-up dispatcher directory for packages (it also reads /etc's).
NMDISPATCHERDIR ?= $(PREFIX)/lib/NetworkManager/dispatcher.d
RELEASE_SCRATCH ?= .build-release
BUILT_PRODUCTS ?= $(RELEASE_SCRATCH)/release
DEB_DIR ?= debian-build
DEB_COMPRESS ?= xz
# One binary (hotspot-helper) behind three names: the programs are links to it.
MULTICALL = hotspot-helper
MULTICALL_PATH = $(LIBEXECDIR)/hotspot-helper/$(MULTICALL)
BUS_NAME = org.freedesktop.NetworkManager.HotspotHelper
INSTALL ?= install

# The release binary with the Swift runtime linked statically, so the package needs no Swift
# toolchain on the target; linked with Debian's hardening flags (-z relro -z now, PIE). For a small
# resident set (docs/PACKAGING.md, "What the daemon keeps in memory"): every function
# in a section of its own, laid out by lld in the order of ORDER_FILE (the code the daemon runs,
# idle first: `make order-file` measures it), relative relocations packed (DT_RELR), and no
# symbols exported (SwiftPM exports every symbol of an executable on Linux; nothing looks them up).
ORDER_FILE ?= packaging/hotspot-helper.order
HARDENING_LDFLAGS = -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
LAYOUT_FLAGS = -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld \
  -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic $(STATIC_CXX_FLAGS)
# libstdc++ linked in, as the Swift runtime is (docs/PACKAGING.md): the runtime uses 25 of its
# functions, and the shared library cost the idle daemon 1.1 MiB. The Swift driver asks for
# -lstdc++ itself; a directory holding only libstdc++.a, searched first, makes that the archive.
STATIC_CXX_DIR = $(abspath $(RELEASE_SCRATCH))/static-libstdc++
STATIC_CXX_FLAGS = -Xlinker -L$(STATIC_CXX_DIR)
ORDER_FLAGS = $(if $(ORDER_FILE),-Xlinker --symbol-ordering-file=$(abspath $(ORDER_FILE)) -Xlinker --no-warn-symbol-ordering)
# The flags a release build's objects were compiled with, but the order file's name (a new order
# only relinks).
RELEASE_COMPILE_FLAGS = $(HARDENING_LDFLAGS) $(LAYOUT_FLAGS) $(RELEASE_EXTRA_FLAGS)
release:
	@# SwiftPM does not know the order file: a newer one must relink.
	@if [ -n "$(ORDER_FILE)" ] && [ "$(ORDER_FILE)" -nt "$(RELEASE_SCRATCH)/release/$(MULTICALL)" ]; then rm -f "$(RELEASE_SCRATCH)/release/$(MULTICALL)"; fi
	@# Nor does it always recompile when only frontend flags change (objects built before
	@# -function-sections kept their one .text): other flags than last time start afresh.
	@if [ -d "$(RELEASE_SCRATCH)" ] && [ "$$(cat "$(RELEASE_SCRATCH)/flags" 2>/dev/null)" != '$(strip $(RELEASE_COMPILE_FLAGS))' ]; then \
	  echo "release: the build flags changed; rebuilding $(RELEASE_SCRATCH) from scratch"; rm -rf "$(RELEASE_SCRATCH)"; fi
	@mkdir -p "$(RELEASE_SCRATCH)" && printf '%s' '$(strip $(RELEASE_COMPILE_FLAGS))' > "$(RELEASE_SCRATCH)/flags"
	@archive=$$(clang -print-file-name=libstdc++.a); case "$$archive" in /*) ;; *) \
	  echo "release: no libstdc++.a for clang (apt-get install libstdc++-12-dev)" >&2; exit 1;; esac; \
	  mkdir -p "$(STATIC_CXX_DIR)" && ln -sfn "$$archive" "$(STATIC_CXX_DIR)/libstdc++.a"
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(RELEASE_SCRATCH) --product $(MULTICALL) \
	  $(HARDENING_LDFLAGS) $(LAYOUT_FLAGS) $(ORDER_FLAGS) $(RELEASE_EXTRA_FLAGS)
	@# The order only saves memory: a stale one is a warning, never a failure.
	@if [ -n "$(ORDER_FILE)" ]; then /usr/bin/python3 Tools/link-order/check $(RELEASE_SCRATCH)/release/$(MULTICALL) $(ORDER_FILE); fi

# The link order: a release build without one and with lld's map, the daemon run under callgrind
# idle, soaking and joining (Tools/link-order/generate), and ORDER_FILE rewritten; then four times the
# release linked with it and the functions its page faults show callgrind missed put first
# (Tools/link-order/refine, with perf). A few minutes.
ORDER_SCRATCH ?= .build-order
order-file: deps
	$(MAKE) --no-print-directory release RELEASE_SCRATCH=$(ORDER_SCRATCH) ORDER_FILE= \
	  RELEASE_EXTRA_FLAGS="-Xlinker -Map=$(abspath $(ORDER_SCRATCH))/hotspot-helper.map -Xlinker --no-demangle"
	for p in footprint-benchmark daemon-benchmark hotspot-stress hotspot-portal-sim; do \
	  $(SWIFT) build -c release --product $$p || exit 1; \
	done
	/usr/bin/python3 Tools/link-order/generate $(ORDER_SCRATCH)/release/hotspot-helper $(ORDER_SCRATCH)/hotspot-helper.map $(ORDER_FILE)
	@# What the daemon runs natively but callgrind did not see (needs perf): four times, relinking in between.
	if command -v perf >/dev/null; then for pass in 1 2 3 4; do \
	  $(MAKE) --no-print-directory release && /usr/bin/python3 Tools/link-order/refine $(BUILT_PRODUCTS)/$(MULTICALL) $(ORDER_FILE) || exit 1; \
	done; else echo "order-file: perf is missing (apt-get install linux-perf): callgrind's profile only"; fi

install: $(if $(SKIP_BUILD),,release)
	$(INSTALL) -D -m 0755 $(BUILT_PRODUCTS)/$(MULTICALL) $(DESTDIR)$(MULTICALL_PATH)
	$(INSTALL) -d -m 0755 $(DESTDIR)$(BINDIR)
	ln -sfn "$$(realpath -m --relative-to=$(LIBEXECDIR) $(MULTICALL_PATH))" $(DESTDIR)$(LIBEXECDIR)/hotspot-helperd
	for p in hotspotctl hotspot-helper-agent; do \
	  ln -sfn "$$(realpath -m --relative-to=$(BINDIR) $(MULTICALL_PATH))" $(DESTDIR)$(BINDIR)/$$p || exit 1; \
	done
	$(INSTALL) -D -m 0644 dbus/$(BUS_NAME).conf $(DESTDIR)$(DBUSDIR)/system.d/$(BUS_NAME).conf
	$(INSTALL) -D -m 0644 dbus/$(BUS_NAME).service $(DESTDIR)$(DBUSDIR)/system-services/$(BUS_NAME).service
	$(INSTALL) -D -m 0644 dbus/$(BUS_NAME).xml $(DESTDIR)$(DBUSDIR)/interfaces/$(BUS_NAME).xml
	$(INSTALL) -D -m 0644 packaging/$(BUS_NAME).policy $(DESTDIR)$(POLKITDIR)/$(BUS_NAME).policy
	$(INSTALL) -D -m 0644 packaging/hotspot-helperd.service $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/hotspot-helperd.service
	$(INSTALL) -D -m 0755 packaging/networkmanager/90-hotspot-helper $(DESTDIR)$(NMDISPATCHERDIR)/pre-up.d/90-hotspot-helper
	$(INSTALL) -D -m 0644 packaging/hotspot-helper-agent.service $(DESTDIR)$(SYSTEMDUSERUNITDIR)/hotspot-helper-agent.service
	$(INSTALL) -D -m 0644 packaging/hotspot-helper-agent.desktop $(DESTDIR)$(SYSCONFDIR)/xdg/autostart/hotspot-helper-agent.desktop
	$(INSTALL) -D -m 0644 packaging/hotspot-helperd.conf $(DESTDIR)$(SYSCONFDIR)/hotspot-helper/hotspot-helperd.conf
	$(INSTALL) -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/hotspot-helper/profiles.d
	$(INSTALL) -D -m 0644 packaging/example-profile.conf $(DESTDIR)$(DOCDIR)/examples/example-profile.conf
	$(INSTALL) -D -m 0644 packaging/debian/copyright $(DESTDIR)$(DOCDIR)/copyright
	for page in hotspotctl.1 hotspot-helper-agent.1 hotspot-helperd.8; do \
	  section=$${page##*.}; \
	  $(INSTALL) -d -m 0755 $(DESTDIR)$(MANDIR)/man$$section || exit 1; \
	  gzip -9 -n -c packaging/man/$$page > $(DESTDIR)$(MANDIR)/man$$section/$$page.gz || exit 1; \
	  chmod 0644 $(DESTDIR)$(MANDIR)/man$$section/$$page.gz; \
	done
	$(INSTALL) -d -m 0755 $(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/vendor-completions \
	  $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	$(BUILT_PRODUCTS)/$(MULTICALL) hotspotctl --generate-completion-script bash | sed '1{/^#!/d}' > $(DESTDIR)$(DATADIR)/bash-completion/completions/hotspotctl
	$(BUILT_PRODUCTS)/$(MULTICALL) hotspotctl --generate-completion-script zsh > $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_hotspotctl
	$(BUILT_PRODUCTS)/$(MULTICALL) hotspotctl --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/hotspotctl.fish
	chmod 0644 $(DESTDIR)$(DATADIR)/bash-completion/completions/hotspotctl $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_hotspotctl \
	  $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/hotspotctl.fish

uninstall:
	rm -f $(DESTDIR)$(MULTICALL_PATH) $(DESTDIR)$(LIBEXECDIR)/hotspot-helperd $(DESTDIR)$(BINDIR)/hotspotctl $(DESTDIR)$(BINDIR)/hotspot-helper-agent \
	  $(DESTDIR)$(DBUSDIR)/system.d/$(BUS_NAME).conf $(DESTDIR)$(DBUSDIR)/system-services/$(BUS_NAME).service \
	  $(DESTDIR)$(DBUSDIR)/interfaces/$(BUS_NAME).xml $(DESTDIR)$(POLKITDIR)/$(BUS_NAME).policy \
	  $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/hotspot-helperd.service $(DESTDIR)$(SYSTEMDUSERUNITDIR)/hotspot-helper-agent.service \
	  $(DESTDIR)$(NMDISPATCHERDIR)/pre-up.d/90-hotspot-helper \
	  $(DESTDIR)$(SYSCONFDIR)/xdg/autostart/hotspot-helper-agent.desktop \
	  $(DESTDIR)$(MANDIR)/man1/hotspotctl.1.gz $(DESTDIR)$(MANDIR)/man1/hotspot-helper-agent.1.gz $(DESTDIR)$(MANDIR)/man8/hotspot-helperd.8.gz \
	  $(DESTDIR)$(DATADIR)/bash-completion/completions/hotspotctl $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_hotspotctl \
	  $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/hotspotctl.fish
	rm -rf $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(LIBEXECDIR)/hotspot-helper

# The .deb: `make install` into a staging tree, then control files and dpkg-deb (no debhelper:
# there is no SwiftPM build system for it, and this works offline).
deb: $(if $(SKIP_BUILD),,release)
	VERSION=$(VERSION) DEB_DIR=$(DEB_DIR) DEB_COMPRESS=$(DEB_COMPRESS) BUILT_PRODUCTS=$(BUILT_PRODUCTS) \
	  ./scripts/build-deb.sh
	$(MAKE) --no-print-directory shell-extension-deb

# The GNOME Shell extension's package, built by `make deb` beside hotspot-helper's.
include packaging/gnome-shell-extension/extension.mk
