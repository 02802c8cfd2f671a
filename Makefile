# Quire's two entry points: `make run` (the demo) and `make test` (the test suite).
# Both install the system libraries they need (Debian packages) when they are missing.
SHELL := /bin/bash
APT_PACKAGES := pkg-config libyaml-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libgumbo-dev python3-venv libsqlite3-dev postgresql liblz4-dev libxxhash-dev tmux
SWIFT ?= swift
PYTHON ?= python3
# The real Loro peer of the interop tests: loro (pinned in Tests/Interop/requirements.txt) in a
# virtualenv of its own; the tests find it through QUIRE_LORO_PYTHON and skip without it.
INTEROP_VENV := .venv-interop
SAMPLE := Examples/documents/sample.json
COLLAB := Examples/collab/two-editors.jsonl

.PHONY: run test test-asan deps build bench interop-venv load-test fuzz soak

deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build --product quire

run: build
	@bin="$$($(SWIFT) build --show-bin-path)"; \
	echo "== quire plugins"; "$$bin/quire" plugins; \
	echo; echo "== quire check $(SAMPLE)"; "$$bin/quire" check $(SAMPLE); \
	echo; echo "== quire render $(SAMPLE)"; "$$bin/quire" render $(SAMPLE); \
	echo; echo "== quire show $(SAMPLE) --width 60"; "$$bin/quire" show $(SAMPLE) --width 60; \
	echo; echo "== quire export --pretty $(SAMPLE) (first lines)"; "$$bin/quire" export --pretty $(SAMPLE) | head -n 12; \
	echo; echo "== quire collab-script $(COLLAB): two editors, each bound to its own CRDT document"; cat $(COLLAB); \
	echo "-- each peer's text, and whether they converged:"; \
	"$$bin/quire" collab-script $(COLLAB) | grep -o '"[A-Za-z0-9_-]*":{"text":"[^"]*"\|"converged":[a-z]*'

interop-venv:
	@if [ ! -x $(INTEROP_VENV)/bin/python ]; then \
	  echo "creating $(INTEROP_VENV)"; $(PYTHON) -m venv $(INTEROP_VENV); \
	fi
	@$(INTEROP_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r Tests/Interop/requirements.txt

# Package.swift must declare exactly the modules each target imports (Tools/check-imports.py).
test: deps interop-venv
	SWIFT="$(SWIFT)" $(PYTHON) Tools/check-imports.py
	QUIRE_LORO_PYTHON="$(CURDIR)/$(INTEROP_VENV)/bin/python" $(SWIFT) test $(SWIFT_TEST_FLAGS)

# The same suite under AddressSanitizer, in a debug build of its own (.build-asan), so that it does
# not displace the usual one. LeakSanitizer is off: at exit it reports the Swift runtime's metadata
# caches and lazily built globals, never a leak of the code under test. The quarantine of freed
# memory (256 MB by default) is 16 MB: the server test that bounds a process's memory would count
# ASan's quarantine as growth. Every other ASan check is on.
test-asan: deps interop-venv
	QUIRE_LORO_PYTHON="$(CURDIR)/$(INTEROP_VENV)/bin/python" ASAN_OPTIONS="$${ASAN_OPTIONS:+$$ASAN_OPTIONS:}detect_leaks=0:quarantine_size_mb=16" \
	  $(SWIFT) test --sanitize=address --scratch-path .build-asan $(SWIFT_TEST_FLAGS)

# Release-mode benchmarks; each prints a table of ratios against its in-run baseline.
bench: deps
	$(SWIFT) run -c release --package-path Benchmarks ModelBenchmark
	$(SWIFT) run -c release --package-path Benchmarks TextStorageBenchmark
	$(SWIFT) run -c release --package-path Benchmarks EditorBenchmark
	$(SWIFT) run -c release --package-path Benchmarks ListBenchmark
	$(SWIFT) run -c release --package-path Benchmarks TableBenchmark
	$(SWIFT) run -c release --package-path Benchmarks MarkupBenchmark
	$(SWIFT) run -c release --package-path Benchmarks BridgeBenchmark
	$(SWIFT) run -c release --package-path Benchmarks HTMLBenchmark

# The sync server under load (a release build, loopback, bounded by QUIRE_LOAD_SECONDS, default 30 s per server),
# against pycrdt-websocket in the same run; not part of `make test`.
LOAD_VENV := .venv-load
# The bridge's randomized sessions at length, in a release build of the tests (debug builds run
# them about ten times slower, and take other paths: some failures show only here). Not part of
# `make test`. SOAK_SEEDS sessions of SOAK_STEPS steps each (default 100 × 1,000).
SOAK_SEEDS ?= 100
SOAK_STEPS ?= 1000
soak: deps
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path .build-release
	SWIFT_DETERMINISTIC_HASHING=1 QUIRE_BRIDGE_SEED_COUNT=$(SOAK_SEEDS) QUIRE_LONG_STEPS=$(SOAK_STEPS) \
	  $(SWIFT) test -c release --skip-build --scratch-path .build-release --filter RandomSessionTests

load-test: deps
	@if [ ! -x $(LOAD_VENV)/bin/python ]; then $(PYTHON) -m venv $(LOAD_VENV); fi
	@$(LOAD_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r Tests/Load/requirements.txt
	$(SWIFT) build -c release --product quire
	$(LOAD_VENV)/bin/python Tests/Load/load_test.py --quire "$$($(SWIFT) build -c release --show-bin-path)/quire"

# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of the engine's input formats; the
# harnesses are the Fuzz/ package. FUZZ_SECONDS per harness (default 60), FUZZ_TARGETS to choose,
# FUZZ_FLAGS for more libFuzzer flags; see Tools/fuzz.sh. Not part of `make test`.
# swiftc keeps only the last -sanitize= flag it is given, so SwiftPM's --sanitize=fuzzer
# --sanitize=address built with AddressSanitizer alone and no coverage instrumentation (libFuzzer
# then mutated blindly: "no interesting inputs were found"). The -Xswiftc list comes last and
# wins; --sanitize=fuzzer stays so that SwiftPM lets libFuzzer provide main.
FUZZ_BUILD := $(SWIFT) build --package-path Fuzz -c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
fuzz: deps
	$(FUZZ_BUILD)
	Tools/fuzz.sh "$$($(FUZZ_BUILD) --show-bin-path)"
