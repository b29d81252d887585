# Hotspot Helper for Linux — common tasks. `make help` lists them.
SWIFT ?= swift

.PHONY: help rpm deps build-deps demo-deps loaded-deps build test test-loaded test-fallback bench bench-hops demo fuzz fuzz-runs fuzz-libfuzzer clean release install uninstall deb load soak bench-report lab lab-bench order-file

help:
	@echo "make deps    install the Debian packages the build, the tests and the lab need (root; make demo and make build install only their own)"
	@echo "make build   build everything (debug)"
	@echo "make test    run the whole test suite (unit, private-bus and mock NetworkManager tests, the release .deb: signals, ICU, lintian; the .rpm and rpmlint; then the lab), and print each step's time"
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
	@echo "make install install them and every system file; SKIP_BUILD=1 installs BUILT_PRODUCTS as they are. Directories (docs/PACKAGING.md):"
	@echo "             DESTDIR=, PREFIX=/usr, BINDIR, LIBEXECDIR, DATADIR, MANDIR, DOCDIR, SYSCONFDIR=/etc, LOCALSTATEDIR=/var (STATEDIR),"
	@echo "             SYSTEMDSYSTEMUNITDIR, SYSTEMDUSERUNITDIR, DBUSDIR, POLKITDIR (from pkg-config when present), NMDISPATCHERDIR, XDGAUTOSTARTDIR,"
	@echo "             BASHCOMPLETIONDIR, ZSHCOMPLETIONDIR, FISHCOMPLETIONDIR"
	@echo "make uninstall  remove what make install installed (same variables; the configuration in SYSCONFDIR stays)"
	@echo "make install-shell-extension  the GNOME Shell extension and its vendor override (DESTDIR=, PREFIX=; uninstall-shell-extension removes them)"
	@echo "make deb     build hotspot-helper_VERSION_ARCH.deb and the Shell extension's package from the tree (dpkg-deb; lintian if installed)"
	@echo "make rpm     build hotspot-helper-VERSION-1.ARCH.rpm with rpmbuild from packaging/rpm/hotspot-helper.spec and the release build (rpmlint if installed)"
	@echo "             Arch Linux: packaging/arch/PKGBUILD (makepkg); other distributions: docs/PACKAGING.md"
	@echo "make build-deps  say which packages the build needs and which are missing (installs them with apt on Debian and Ubuntu, as root)"
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

# The steps, and what runs beside what (scripts/timed-steps.sh times each and prints the table at
# the end, failed or not; a failed build stops the steps that need it, a failed step otherwise
# does not). Two cores do a build and the tests side by side sooner than one after the other: the
# Swift tests and the lab's guests wait on processes, the bus and the network much of the time.
# - The Debian 13 (with Plasma) and forky roots (scripts/test-roots.sh: the mirror and the disk more
#   than the CPU; a second once cached) start first and go on beside everything.
# - The release build starts at once beside the debug build: the .deb, and the programs the lab
#   runs (lab-programs: the release binary the .deb ships, and the simulator and example helper
#   built in release beside it). It holds .build/release.lock while it makes the .deb; the Swift
#   tests wait for that lock (they start minutes after it was taken), so they read a finished .deb.
# - The lab starts the moment the release build has passed, beside the rest (its boots side by
#   side; Tests/Lab/run-lab --sequential does not): under QEMU's emulation the release programs
#   start in a fraction of the debug ones' time and use a third less CPU.
# - The release build and then the lab are the longest path (10.5 and 9.5 minutes on a fresh 2-core
#   machine, against 9 for the debug build and 6 for the Swift tests after it), so the release
#   build has the cores first: the debug build runs at a lower priority (nice) and takes what it
#   and the lab's guests leave. Not the roots: the Swift tests wait for them, and under nice they
#   were made 5 minutes after the debug build was done (7 minutes otherwise).
# - The Swift tests, all of them in one run (the .deb's and those in the roots too, which wait for
#   the roots with scripts/test-roots.sh), once the debug build is done; fuzzing beside them.
test: deps
	./scripts/timed-steps.sh "make test" \
	  '@Debian 13 (with Plasma) and forky roots (made once, beside everything)' './scripts/test-roots.sh' \
	  '@release build: the .deb and the lab'"'"'s programs (beside the debug build)' 'mkdir -p .build && flock .build/release.lock $(MAKE) --no-print-directory deb NO_LINTIAN=1 && $(MAKE) --no-print-directory lab-programs' \
	  '@>lab (real NetworkManager, QEMU, the release programs; its boots side by side)' './Tests/Lab/run-lab --build-dir $(LAB_BIN)' \
	  '!build (debug, with tests)' 'nice -n 5 $(SWIFT) build --build-tests' \
	  '&fuzz ($(or $(FUZZ_SECONDS),3) s a target)' '.build/debug/hotspot-fuzz --seconds $(or $(FUZZ_SECONDS),3)' \
	  'Swift tests (all: the .deb'"'"'s, Shell 48 and 50 and Plasma 6.3 in the roots too)' 'flock .build/release.lock true && ./scripts/test-roots.sh > /dev/null && SWIFT="$(SWIFT)" ./scripts/swift-test.sh'

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
# The guests run the release programs (lab-programs) and the systemd group installs the .deb: what
# ships is what the lab tests. `--build-dir .build/debug` runs a debug build's instead.
lab: deps
	$(MAKE) --no-print-directory deb lab-programs NO_LINTIAN=1
	./Tests/Lab/run-lab --build-dir $(LAB_BIN) $(LAB_ARGS)

lab-bench: deps
	$(MAKE) --no-print-directory lab-programs
	./Tests/Lab/run-lab --bench --build-dir $(LAB_BIN) $(LAB_ARGS)

# The programs the lab's guests run, in LAB_BIN: the release binary (hotspot-helper, behind the
# names hotspot-helperd and hotspotctl, as the .deb installs it) and the two test programs, the
# portal simulator and the example helper, built in release beside it with the same flags (one
# build; under QEMU's emulation a debug build's programs take seconds to start).
LAB_BIN ?= $(RELEASE_SCRATCH)/lab-bin
.PHONY: lab-programs
lab-programs: release
	$(foreach p,hotspot-portal-sim hotspot-example-helper,$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath \
	  --scratch-path $(RELEASE_SCRATCH) --product $(p) $(HARDENING_LDFLAGS) $(LAYOUT_FLAGS) $(ORDER_FLAGS) $(RELEASE_EXTRA_FLAGS) &&) true
	mkdir -p $(LAB_BIN)
	ln -sfn ../release/$(MULTICALL) $(LAB_BIN)/hotspot-helperd
	ln -sfn ../release/$(MULTICALL) $(LAB_BIN)/hotspotctl
	ln -sfn ../release/hotspot-portal-sim $(LAB_BIN)/hotspot-portal-sim
	ln -sfn ../release/hotspot-example-helper $(LAB_BIN)/hotspot-example-helper

# The sign-in scenarios on today's NetworkManager: 1.52 in a Debian 13 root, 1.58 in a
# forky root (scripts/test-root.sh makes and caches them), each with the release .deb from
# `make deb` installed there with apt (made again first, about 20 s when the release build is up
# to date: a package left from an older tree would test that tree). Not in `make test` (its 20
# minutes); CI runs it after it.
LAB_RELEASES ?= trixie forky
.PHONY: lab-releases
lab-releases: deps
	$(MAKE) --no-print-directory deb lab-programs NO_LINTIAN=1
	./Tests/Lab/run-lab --build-dir $(LAB_BIN) $(foreach r,$(LAB_RELEASES),--nm-release $(r)) $(LAB_ARGS)

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
# Where `make install` puts things (docs/PACKAGING.md, "Installing from source"). The programs,
# their data and documentation follow PREFIX. The directories other daemons read (systemd, D-Bus,
# polkit, NetworkManager) do not: they come from those packages' pkg-config files when installed
# (systemd.pc, dbus-1.pc, polkit-gobject-1.pc), else from where those daemons look on every
# distribution, since a unit or a bus policy under /usr/local is read by none of them (systemd
# excepted). Every installed file that names a path names the installed one: the files in
# packaging/ and dbus/ name the default paths, and INSTALL_PATHS rewrites them as installed.
# The release: written once, in Sources/HotspotProtocol/ProductVersion.swift (the daemon publishes it as Version).
VERSION ?= $(shell sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/HotspotProtocol/ProductVersion.swift)
PREFIX ?= /usr
DESTDIR ?=
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/hotspot-helper
# The daemon's state (its network cache and autoconnect ledger).
STATEDIR ?= $(LOCALSTATEDIR)/lib/hotspot-helper
PKG_CONFIG ?= pkg-config
# A pkg-config variable, or the default when the package's .pc is not installed (asked once,
# and only when the variable is not given).
pkgvar = $(or $(shell $(PKG_CONFIG) --variable=$(2) $(1) 2>/dev/null),$(3))
ifeq ($(origin SYSTEMDSYSTEMUNITDIR),undefined)
SYSTEMDSYSTEMUNITDIR := $(call pkgvar,systemd,systemdsystemunitdir,/usr/lib/systemd/system)
endif
ifeq ($(origin SYSTEMDUSERUNITDIR),undefined)
SYSTEMDUSERUNITDIR := $(call pkgvar,systemd,systemduserunitdir,/usr/lib/systemd/user)
endif
ifeq ($(origin DBUSDIR),undefined)
DBUSDIR := $(call pkgvar,dbus-1,datadir,/usr/share)/dbus-1
endif
ifeq ($(origin POLKITDIR),undefined)
POLKITDIR := $(call pkgvar,polkit-gobject-1,policydir,/usr/share/polkit-1/actions)
endif
# NetworkManager's own dispatcher directory for packages (it also reads /etc's); NetworkManager
# ships no pkg-config variable for it.
NMDISPATCHERDIR ?= /usr/lib/NetworkManager/dispatcher.d
XDGAUTOSTARTDIR ?= $(SYSCONFDIR)/xdg/autostart
# Shell completions (Debian's zsh directory; Fedora and Arch use $(DATADIR)/zsh/site-functions).
BASHCOMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPLETIONDIR ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPLETIONDIR ?= $(DATADIR)/fish/vendor_completions.d
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
# No RUNPATH either (--disable-local-rpath): SwiftPM adds $ORIGIN for libraries beside the binary,
# and there are none; rpmlint refuses a package whose binary searches its own directory.
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
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --scratch-path $(RELEASE_SCRATCH) --product $(MULTICALL) \
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

# The files in packaging/ and dbus/ name Debian's paths (so they read as they install there);
# installed, each names the installed one instead. Roff writes '-' as '\-', hence the '\\?'.
INSTALL_PATHS = sed -E \
  -e 's|/usr/libexec/hotspot|$(LIBEXECDIR)/hotspot|g' \
  -e 's|/usr/bin/hotspot|$(BINDIR)/hotspot|g' \
  -e 's|/etc/hotspot|$(SYSCONFDIR)/hotspot|g' \
  -e 's|/etc/xdg/autostart|$(XDGAUTOSTARTDIR)|g' \
  -e 's|/var/lib/hotspot(\\?)-helper|$(STATEDIR)|g' \
  -e 's|/usr/lib/NetworkManager/dispatcher\.d|$(NMDISPATCHERDIR)|g' \
  -e 's|(/usr)?/lib/systemd/system|$(SYSTEMDSYSTEMUNITDIR)|g' \
  -e 's|/usr/lib/systemd/user|$(SYSTEMDUSERUNITDIR)|g' \
  -e 's|/usr/share/dbus(\\?)-1|$(DBUSDIR)|g' \
  -e 's|/usr/share/polkit(\\?)-1/actions|$(POLKITDIR)|g' \
  -e 's|/usr/share/doc/hotspot(\\?)-helper|$(DOCDIR)|g'
# The daemon reads /etc/hotspot-helper/hotspot-helperd.conf and keeps its state in
# /var/lib/hotspot-helper unless told otherwise: elsewhere, its unit tells it, and systemd's
# StateDirectory= (which is always under /var/lib) gives way to ReadWritePaths=.
DAEMON_UNIT_PATHS = $(if $(filter-out /etc,$(SYSCONFDIR)),-e 's|^ExecStart=.*|& --config $(SYSCONFDIR)/hotspot-helper/hotspot-helperd.conf|') \
  $(if $(filter-out /var/lib/hotspot-helper,$(STATEDIR)),-e 's|^ExecStart=.*|& --state-dir $(STATEDIR)|' \
    -e 's|^StateDirectory=.*|ReadWritePaths=$(STATEDIR)|' -e '/^StateDirectoryMode=/d')
# The compiled-in profiles directory is /etc's: elsewhere the installed configuration sets it.
DAEMON_CONF_PATHS = $(if $(filter-out /etc,$(SYSCONFDIR)),-e 's|^#profiles-dir=|profiles-dir=|')
# install_subst MODE SOURCE TARGET: SOURCE with its paths rewritten, installed as TARGET.
install_subst = $(INSTALL) -d -m 0755 $(dir $(DESTDIR)$(3)) && $(INSTALL_PATHS) $(4) $(2) > $(DESTDIR)$(3) && chmod $(1) $(DESTDIR)$(3)

install: $(if $(SKIP_BUILD),,release)
	$(INSTALL) -D -m 0755 $(BUILT_PRODUCTS)/$(MULTICALL) $(DESTDIR)$(MULTICALL_PATH)
	$(INSTALL) -D -m 0755 packaging/hotspot-sign-in-dialog $(DESTDIR)$(LIBEXECDIR)/hotspot-helper/hotspot-sign-in-dialog
	$(INSTALL) -d -m 0755 $(DESTDIR)$(BINDIR)
	ln -sfn "$$(realpath -m --relative-to=$(LIBEXECDIR) $(MULTICALL_PATH))" $(DESTDIR)$(LIBEXECDIR)/hotspot-helperd
	for p in hotspotctl hotspot-helper-agent; do \
	  ln -sfn "$$(realpath -m --relative-to=$(BINDIR) $(MULTICALL_PATH))" $(DESTDIR)$(BINDIR)/$$p || exit 1; \
	done
	$(call install_subst,0644,dbus/$(BUS_NAME).conf,$(DBUSDIR)/system.d/$(BUS_NAME).conf)
	$(call install_subst,0644,dbus/$(BUS_NAME).service,$(DBUSDIR)/system-services/$(BUS_NAME).service)
	$(INSTALL) -D -m 0644 dbus/$(BUS_NAME).xml $(DESTDIR)$(DBUSDIR)/interfaces/$(BUS_NAME).xml
	$(call install_subst,0644,packaging/$(BUS_NAME).policy,$(POLKITDIR)/$(BUS_NAME).policy)
	$(call install_subst,0644,packaging/hotspot-helperd.service,$(SYSTEMDSYSTEMUNITDIR)/hotspot-helperd.service,$(DAEMON_UNIT_PATHS))
	$(call install_subst,0755,packaging/networkmanager/90-hotspot-helper,$(NMDISPATCHERDIR)/pre-up.d/90-hotspot-helper)
	$(call install_subst,0644,packaging/hotspot-helper-agent.service,$(SYSTEMDUSERUNITDIR)/hotspot-helper-agent.service)
	$(call install_subst,0644,packaging/hotspot-helper-agent.desktop,$(XDGAUTOSTARTDIR)/hotspot-helper-agent.desktop)
	$(call install_subst,0644,packaging/hotspot-helperd.conf,$(SYSCONFDIR)/hotspot-helper/hotspot-helperd.conf,$(DAEMON_CONF_PATHS))
	$(INSTALL) -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/hotspot-helper/profiles.d
	$(if $(filter-out /var/lib/hotspot-helper,$(STATEDIR)),$(INSTALL) -d -m 0700 $(DESTDIR)$(STATEDIR))
	$(call install_subst,0644,packaging/example-profile.conf,$(DOCDIR)/examples/example-profile.conf)
	$(INSTALL) -D -m 0644 packaging/debian/copyright $(DESTDIR)$(DOCDIR)/copyright
	for page in hotspotctl.1 hotspot-helper-agent.1 hotspot-helperd.8; do \
	  section=$${page##*.}; \
	  $(INSTALL) -d -m 0755 $(DESTDIR)$(MANDIR)/man$$section || exit 1; \
	  $(INSTALL_PATHS) packaging/man/$$page | gzip -9 -n -c > $(DESTDIR)$(MANDIR)/man$$section/$$page.gz || exit 1; \
	  chmod 0644 $(DESTDIR)$(MANDIR)/man$$section/$$page.gz; \
	done
	$(INSTALL) -d -m 0755 $(DESTDIR)$(BASHCOMPLETIONDIR) $(DESTDIR)$(ZSHCOMPLETIONDIR) $(DESTDIR)$(FISHCOMPLETIONDIR)
	$(BUILT_PRODUCTS)/$(MULTICALL) hotspotctl --generate-completion-script bash | sed '1{/^#!/d}' > $(DESTDIR)$(BASHCOMPLETIONDIR)/hotspotctl
	$(BUILT_PRODUCTS)/$(MULTICALL) hotspotctl --generate-completion-script zsh > $(DESTDIR)$(ZSHCOMPLETIONDIR)/_hotspotctl
	$(BUILT_PRODUCTS)/$(MULTICALL) hotspotctl --generate-completion-script fish > $(DESTDIR)$(FISHCOMPLETIONDIR)/hotspotctl.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPLETIONDIR)/hotspotctl $(DESTDIR)$(ZSHCOMPLETIONDIR)/_hotspotctl $(DESTDIR)$(FISHCOMPLETIONDIR)/hotspotctl.fish

uninstall:
	rm -f $(DESTDIR)$(LIBEXECDIR)/hotspot-helper/hotspot-sign-in-dialog
	rm -f $(DESTDIR)$(MULTICALL_PATH) $(DESTDIR)$(LIBEXECDIR)/hotspot-helperd $(DESTDIR)$(BINDIR)/hotspotctl $(DESTDIR)$(BINDIR)/hotspot-helper-agent \
	  $(DESTDIR)$(DBUSDIR)/system.d/$(BUS_NAME).conf $(DESTDIR)$(DBUSDIR)/system-services/$(BUS_NAME).service \
	  $(DESTDIR)$(DBUSDIR)/interfaces/$(BUS_NAME).xml $(DESTDIR)$(POLKITDIR)/$(BUS_NAME).policy \
	  $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/hotspot-helperd.service $(DESTDIR)$(SYSTEMDUSERUNITDIR)/hotspot-helper-agent.service \
	  $(DESTDIR)$(NMDISPATCHERDIR)/pre-up.d/90-hotspot-helper \
	  $(DESTDIR)$(XDGAUTOSTARTDIR)/hotspot-helper-agent.desktop \
	  $(DESTDIR)$(MANDIR)/man1/hotspotctl.1.gz $(DESTDIR)$(MANDIR)/man1/hotspot-helper-agent.1.gz $(DESTDIR)$(MANDIR)/man8/hotspot-helperd.8.gz \
	  $(DESTDIR)$(BASHCOMPLETIONDIR)/hotspotctl $(DESTDIR)$(ZSHCOMPLETIONDIR)/_hotspotctl $(DESTDIR)$(FISHCOMPLETIONDIR)/hotspotctl.fish
	rm -rf $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(LIBEXECDIR)/hotspot-helper

# The .deb: `make install` into a staging tree, then control files and dpkg-deb (no debhelper:
# there is no SwiftPM build system for it, and this works offline).
# The system units stay in /lib/systemd/system, where Debian 12's systemd.pc puts them, whatever the
# build machine's pkg-config says: moving a file between /lib and /usr/lib from one version of a
# package to the next deletes it on merged-/usr systems (dpkg sees two paths; DEP 17).
DEB_SYSTEMDSYSTEMUNITDIR ?= /lib/systemd/system
deb: $(if $(SKIP_BUILD),,release)
	VERSION=$(VERSION) DEB_DIR=$(DEB_DIR) DEB_COMPRESS=$(DEB_COMPRESS) BUILT_PRODUCTS=$(BUILT_PRODUCTS) \
	  SYSTEMDSYSTEMUNITDIR=$(DEB_SYSTEMDSYSTEMUNITDIR) ./scripts/build-deb.sh
	$(MAKE) --no-print-directory shell-extension-deb

# The .rpm (docs/PACKAGING.md, "RPM"): packaging/rpm/hotspot-helper.spec built by rpmbuild with
# the tree as its source; SKIP_BUILD=1 packages BUILT_PRODUCTS' release binary as it is.
RPM_DIR ?= rpm-build
rpm: $(if $(SKIP_BUILD),,release)
	VERSION=$(VERSION) RPM_DIR=$(RPM_DIR) BUILT_PRODUCTS=$(BUILT_PRODUCTS) ./packaging/rpm/build-rpm.sh

# The GNOME Shell extension's package, built by `make deb` beside hotspot-helper's.
include packaging/gnome-shell-extension/extension.mk
