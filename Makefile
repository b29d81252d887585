# Hotspot Helper for Linux — common tasks. `make help` lists them.
SWIFT ?= swift

.PHONY: help deps build test bench demo clean

help:
	@echo "make deps    install the Debian packages the build and the tests need (root)"
	@echo "make build   build everything (debug)"
	@echo "make test    run the whole test suite (unit, private-bus and mock NetworkManager tests)"
	@echo "make demo    the daemon against a simulated NetworkManager and an example helper, live"
	@echo "make bench   run the benchmarks in release mode and print figures and ratios"

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) build -c release
	.build/release/dbus-benchmark
	.build/release/daemon-benchmark
	.build/release/hotspot-portal-sim benchmark
	.build/release/profiles-benchmark

demo: deps
	$(SWIFT) build --product hotspot-helperd
	$(SWIFT) build --product hotspot-example-helper
	$(SWIFT) build --product hotspot-demo
	.build/debug/hotspot-demo

clean:
	$(SWIFT) package clean
