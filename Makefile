# Hotspot Helper for Linux — common tasks. `make help` lists them.
SWIFT ?= swift

.PHONY: help deps build test bench clean

help:
	@echo "make deps    install the Debian packages the build and the tests need (root)"
	@echo "make build   build everything (debug)"
	@echo "make test    run the whole test suite (unit, private-bus and mock NetworkManager tests)"
	@echo "make bench   run the benchmarks in release mode and print figures and ratios"

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) build -c release --product dbus-benchmark
	.build/release/dbus-benchmark

clean:
	$(SWIFT) package clean
