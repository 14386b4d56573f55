# fetchd: the two commands a fresh machine needs are `make run` and `make test`.
SWIFT ?= swift
RELEASE_BIN := .build/release/fetchd
DEBUG_BIN := .build/debug/fetchd

PREFIX ?= /usr/local

.PHONY: run test deps build release dist install uninstall test-dist test-readme soak test-soak test-repros test-pg-faults test-faults lint format test-swift test-postgres test-transcripts test-interop test-mcp bench-mcp test-python test-js test-nvim test-bench-tools test-fuzz fuzz sanitize bench bench-transport clean

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The main job: build, then show fetchd live against its embedded in-memory store.
run: release
	@scripts/run-demo.sh $(RELEASE_BIN)

# What a user installs, none of which needs a Swift toolchain to run: the self-contained
# binary (static Swift stdlib, stripped) and its man page, completions, Neovim plugin and docs
# in dist/root, the Debian package dist/fetchd_<version>_<arch>.deb and the Python wheel with
# the binary inside, dist/fetchd-<version>-*.whl.
dist: deps
	@scripts/dist.sh all

# make install PREFIX=/usr/local (the default) DESTDIR=...; make uninstall removes it again.
install: deps
	@scripts/dist.sh stage
	@PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' scripts/install.sh install

uninstall:
	@PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' scripts/install.sh uninstall

# make dist, then each artifact tried as a user would: the binary with the toolchain hidden,
# make install/uninstall, the .deb (lintian, dpkg -i, dpkg -r), the wheel in a fresh venv,
# and one version everywhere.
test-dist: deps
	@scripts/test-dist.sh

# Everything: Swift tests (the PostgreSQL suites against a throwaway cluster), transcript tests, the pygls interop client, Python, JS and Neovim client tests, fault injection (SQLite and PostgreSQL), the soak's reproductions, a 60 s soak, the packages.
test: deps
	$(SWIFT) build --build-tests
	$(MAKE) lint test-swift test-postgres test-transcripts test-interop test-mcp test-python test-js test-nvim test-bench-tools test-readme test-fuzz test-faults test-pg-faults test-repros test-soak test-dist

# Swift style: `swift format` (shipped with the toolchain) with the checked-in .swift-format.
SWIFT_SOURCES := Package.swift Sources Tests Benchmarks/Sources Benchmarks/Package.swift Fuzz/Sources Fuzz/Package.swift

lint:
	$(SWIFT) format lint --strict --parallel -r $(SWIFT_SOURCES)

format:
	$(SWIFT) format format -i --parallel -r $(SWIFT_SOURCES)

# The suites that need a PostgreSQL server run only in test-postgres (they fail, never skip,
# when run without its cluster). Extend the pattern (a regular expression over test names);
# PredicatesTests.PG* are the predicate compiler's PostgreSQL suites; StoreTests.PG*,
# ContextsTests.PG* and ControllersTests.PG* run the PostgreSQL store (PGStore) and the
# contexts and controllers on it; EndToEndTests.PG* the fetchd binary on it.
POSTGRES_TEST_FILTER ?= PostgresTests|PGWatchTests|PredicatesTests\.PG|StoreTests\.PG|ContextsTests\.PG|ControllersTests\.PG|EndToEndTests\.PG
export POSTGRES_TEST_FILTER

test-swift:
	$(SWIFT) test --skip-build --skip '$(POSTGRES_TEST_FILTER)'

# A throwaway cluster (scripts/pg-cluster.sh: Unix socket only, removed in every outcome)
# for the PostgreSQL suites; a loud skip where the server cannot be installed.
test-postgres:
	@scripts/test-postgres.sh '$(POSTGRES_TEST_FILTER)'

test-transcripts:
	@scripts/test-transcripts.sh $(DEBUG_BIN)

# An independent client (pygls 2.1.1, installed into .build/interop-venv) against the binary.
test-interop:
	@Tests/Interop/run-pygls.sh $(DEBUG_BIN)

# `fetchd mcp` against the official MCP Python SDK (mcp 2.3.0, in .build/mcp-venv), in both
# protocol eras, with --read-only.
test-mcp:
	@Tests/MCP/run-mcp.sh $(DEBUG_BIN)

# How fast another process's commit reaches a subscribed MCP client (release build).
bench-mcp: release
	@Tests/MCP/run-mcp.sh $(RELEASE_BIN) --latency

test-python:
	@scripts/test-python.sh $(DEBUG_BIN)

test-js:
	@scripts/test-js.sh $(DEBUG_BIN)

# The Neovim sample (clients/nvim) in nvim --headless against the binary.
test-nvim:
	@scripts/test-nvim.sh $(DEBUG_BIN)

# Every code block of README.md and docs/core-data.md, run against the debug binary.
test-readme:
	@scripts/test-readme.sh $(DEBUG_BIN) README.md docs/core-data.md

# The benchmark tools' own unit tests (stdlib Python; no benchmark is run).
test-bench-tools:
	python3 -m unittest discover -s Benchmarks/python/tests -t Benchmarks/python

# libFuzzer targets (Fuzz/: framing reader, JSON decoder, predicate parser) under the address
# sanitizer, seeded from the transcripts: a short run in `make test`, a long one in `make fuzz`
# (FUZZ_SECONDS per target). A failing input is kept in .build/fuzz/crash-*.
FUZZ_SECONDS ?= 600
test-fuzz: deps
	@scripts/fuzz.sh 12

fuzz: deps
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# The Swift test suite under the address sanitizer (own build dir; scripts/sanitize.sh thread: TSan).
sanitize: deps
	@scripts/sanitize.sh

# Many processes on one store for SECONDS (600 by default; Tests/Soak/README.md); `make test`
# runs the 60 s version.
soak: build
	@scripts/soak.sh $(DEBUG_BIN) $(or $(SECONDS),600)

test-soak: build
	@scripts/soak.sh $(DEBUG_BIN) 60

# The deterministic reproductions of what the soak found (Tests/Soak/repros.py).
test-repros: build
	@python3 Tests/Soak/repros.py $(DEBUG_BIN)

# PostgreSQL faults injected at known points (Tests/Soak/README.md).

test-pg-faults: build
	@scripts/test-pg-faults.sh $(DEBUG_BIN)

# SQLite faults at known points (Tests/Faults/README.md): a full disk, a read-only or removed
# directory, kill -9 with restarts by historyToken (FAULTS_KILLS rounds).
test-faults: build
	@scripts/test-faults.sh $(DEBUG_BIN)

bench: deps
	@scripts/bench.sh

# Transport round trip vs a raw pipe, and pipelined throughput (release build, real pipes).
bench-transport: deps
	@Tests/Performance/run-transport-bench.sh

clean:
	rm -rf .build
