# SuperApp Gateway. Two commands for a newcomer: `make run` and `make test`.
.PHONY: run test build deps fuzz clean bench bench-cluster install chaos

# The toolchain: `swift` on PATH, else the /opt/swift install (as .ci/run uses); the
# scripts run it from PATH, so its folder goes first.
SWIFT ?= $(or $(shell command -v swift 2>/dev/null),$(wildcard /opt/swift/usr/bin/swift))
ifeq ($(SWIFT),)
$(error no Swift toolchain found: put swift (6.2 or newer; 6.3 tested) on PATH or install it under /opt/swift)
endif
export PATH := $(abspath $(dir $(SWIFT))):$(PATH)

## Install missing Debian packages, build what changed, start the gateway on its embedded defaults
## (SQLite in ./.gateway, in-process cache, a `demo` tenant, http://127.0.0.1:8080, the admin
## listener on http://127.0.0.1:8081).
## A warm start skips SwiftPM when no source is newer than the binaries: each `swift build
## --product` relinks the OpenAPI generator tool (~20 s), so up-to-date checks are make's.
## The admin listener (the operators' API and the console at /console) on loopback port 8081;
## `make run GATEWAY_ADMIN_PORT=` serves none.
GATEWAY_ADMIN_PORT ?= 8081
run: deps .build/debug/gateway .build/debug/gatewayctl
	$(if $(GATEWAY_ADMIN_PORT),GATEWAY_ADMIN_PORT=$(GATEWAY_ADMIN_PORT)) .build/debug/gateway serve

## Everything a product is built from; a change in any of them rebuilds both binaries.
SOURCES := Package.swift $(shell find Sources OpenAPI -type f 2>/dev/null)

.build/debug/gateway .build/debug/gatewayctl: $(SOURCES)
	@test -x $@ || echo "building $(notdir $@) (the first build takes about 10 minutes on 2 cores)…"
	$(SWIFT) build --product $(notdir $@)
	@touch $@

## Copies gateway and gatewayctl (debug build) to $(PREFIX)/bin, ~/.local/bin by default.
PREFIX ?= $(HOME)/.local
install: deps .build/debug/gateway .build/debug/gatewayctl
	install -d "$(PREFIX)/bin"
	install -m 0755 .build/debug/gateway .build/debug/gatewayctl "$(PREFIX)/bin/"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on PATH; add it: export PATH=\"$(PREFIX)/bin:\$$PATH\"";; esac

## Everything CI runs: deps, a throwaway redis-server, contract fuzzing, the Swift suite.
test:
	scripts/test.sh

## Release build + wrk figures (cached manifest vs bare route, /home, stampede, RSS); see docs/benchmarks.md.
bench: deps
	scripts/bench.sh

## Release build; 1 vs 3 replicas behind nginx on PostgreSQL + Redis, Sentinel failover gap, rolling-restart errors.
bench-cluster: deps
	scripts/bench-cluster.sh

## A cluster of network-namespace hosts under faults (root; see docs/chaos.md). CHAOS_ARGS passes
## options, e.g. CHAOS_ARGS="--seed 7 --seconds 300".
chaos: deps .build/debug/gateway .build/debug/gatewayctl
	scripts/install-deps.sh --with-test-tools
	scripts/chaos/chaos.py $(CHAOS_ARGS)

build: deps
	$(SWIFT) build

deps:
	scripts/install-deps.sh

clean:
	rm -rf .build
