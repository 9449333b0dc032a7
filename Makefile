# SuperApp Gateway. Two commands for a newcomer: `make run` and `make test`.
.PHONY: run test build deps fuzz clean bench

SWIFT ?= swift

## Install missing Debian packages, build, start the gateway on its embedded defaults
## (SQLite in ./.gateway, in-process cache, a `demo` tenant, http://127.0.0.1:8080).
run: deps
	$(SWIFT) build --product gateway
	$(SWIFT) build --product gatewayctl
	.build/debug/gateway serve

## Everything CI runs: deps, a throwaway redis-server, contract fuzzing, the Swift suite.
test:
	scripts/test.sh

## Release build + wrk figures (cached manifest vs bare route, /home, stampede, RSS); see docs/benchmarks.md.
bench: deps
	scripts/bench.sh

build: deps
	$(SWIFT) build

deps:
	scripts/install-deps.sh

clean:
	rm -rf .build
