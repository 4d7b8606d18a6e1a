# looplab — thin wrapper over the CMake presets and npm.
#
#   make deps     install missing Debian packages (apt) and node_modules (npm ci)
#   make build    deps + configure/build the native and wasm presets
#   make check    the inner loop: native build + ctest (GoogleTest, CLI) + the golden results
#   make lint     layer check, the tree's own promises (scripts/check-tree: .editorconfig, cited
#                 files exist, lines per layer under a ceiling), clang-format check, eslint (seconds)
#   make test     lint + every build + every test: native, sanitize (ASan+UBSan tests and fuzz
#                 smoke) and wasm side by side, each tested when built; the timed tests last
#                 (CI runs exactly this)
#   make serve    build + dist + serve the repo root; the page: http://127.0.0.1:$(PORT)/dist/
#                 (bundled, precompressed), the development tree at /web/
#   make bench    build + run the benchmark natively and as wasm under node
#   make dist     the wasm module + dist/: the static site (page, widgets, embed, authoring page) and
#                 dist/looplab-standalone.html (one file, works from file://)
#   make prove-recipes  follow CONTRIBUTING's "Add an op" on a scratch copy of HEAD: build, test
#                 (scripts/prove-add-op; one native build, ~4 min; CI runs it after make test)
#   make fuzz     build the libFuzzer targets (sanitize preset) and run each for FUZZ_SECONDS (default 60)
#   make clean    remove build/, test-results/ and dist/ (node_modules stays; `make distclean` removes it)
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

PORT ?= 8080
APT_PACKAGES := emscripten libeigen3-dev nlohmann-json3-dev libgtest-dev googletest chromium \
                cmake g++ python3 python3-numpy clang libclang-rt-14-dev clang-format fonts-wqy-microhei
PRESETS := native wasm sanitize
FUZZ_TARGETS := config run csv
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 5
# cmake/ctest run their own make with -j2: keep this make's flags (and its "Entering directory"
# chatter) out of them.
comma := ,
empty :=
space := $(empty) $(empty)
CLEAN_ENV := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL
GOLDEN_CHECK := python3 tests/golden/golden.py check build/native/looplab tests/golden/results

.PRECIOUS: build/%/.configured
.PHONY: prove-recipes deps apt-deps build build-wasm-module check lint test test-native test-sanitize test-wasm serve bench dist fuzz fuzz-smoke clean distclean $(addprefix build-,$(PRESETS))

deps: apt-deps node_modules/.package-lock.json

apt-deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q '^install ok installed$$' \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "apt: installing$$missing"; \
	    apt-get update && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y --no-install-recommends $$missing; \
	  else \
	    echo "missing Debian packages:$$missing. Install them with:" >&2; \
	    echo "  sudo apt-get install -y --no-install-recommends$$missing" >&2; \
	    exit 1; \
	  fi; \
	fi; \
	command -v node >/dev/null && command -v npm >/dev/null \
	  || { echo "node (>= 20) and npm are required and not on PATH" >&2; exit 1; }

# npm ci writes node_modules/.package-lock.json: redo it when the lock file is newer.
node_modules/.package-lock.json: package-lock.json package.json
	npm ci
	@touch $@

# Configure when the build tree is missing or the presets changed; after that CMake re-runs
# itself when a CMakeLists.txt changes.
build/%/.configured: CMakePresets.json | deps
	cmake --preset $*
	@touch $@

$(addprefix build-,$(PRESETS)): build-%: build/%/.configured | deps
	$(BACKGROUND) $(CLEAN_ENV) cmake --build --preset $*

# `make build` (and `make serve`) build what the page needs: native and wasm. The sanitizer build
# is for `make test` only.
build: build-native build-wasm

# The inner loop while changing the core: seconds after an incremental build.
check: build-native
	ctest --preset native
	$(GOLDEN_CHECK)

# Layers, format and eslint: before anything is built, so a slip fails in seconds.
lint: deps
	scripts/check-layers
	scripts/check-tree
	clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.hpp')
	npm run --silent lint

# One tree per compiler: native g++ (-O3, the CLI and tests), clang with ASan + UBSan (the same
# tests and CLI checks under sanitizers, and the fuzz targets), em++ (the module and the tests
# under node). The three trees build side by side (each cmake at -j2, so both cores stay busy
# through one tree's last big file or link) and each is tested as soon as it is built: the JS and
# browser tests start once the wasm module is linked, and overlap the other trees' work, as they
# often wait on a page; the wasm test suite builds beside them. Only the
# tests that time the page (scripts/test-js) run at the end, when the machine is quiet.
# GoogleTest suites named Timed* assert a ratio of timings (wasm.Timed runs them in wasm): they wait
# for the quiet end of `make test`.
TIMED_TESTS := ^Timed|^wasm\.Timed$$
# The wasm module and the browser tests are the longest chain, and the browser tests often wait on
# a page: everything else (the native and sanitize trees, the wasm test suite) builds and tests at a
# lower priority and fills those gaps. (A target-specific variable applies to the target's
# prerequisites too.)
BACKGROUND_PRIORITY := nice -n 10
test-native test-sanitize: BACKGROUND := $(BACKGROUND_PRIORITY)
test: lint
	$(MAKE) --no-print-directory -j3 --output-sync=target test-native test-sanitize test-wasm
	ctest --preset native -R '$(TIMED_TESTS)'
	ctest --preset wasm -R '$(TIMED_TESTS)'
	scripts/test-js timed

test-native: build-native
	$(BACKGROUND) ctest --preset native -E '$(TIMED_TESTS)'
	$(BACKGROUND) $(GOLDEN_CHECK)

test-sanitize: build-sanitize
	$(BACKGROUND) ctest --preset sanitize
	$(BACKGROUND) $(MAKE) --no-print-directory fuzz-smoke

# The JS and browser tests need only the module: they start as soon as it is linked, while the
# wasm GoogleTest suite builds beside them at the lower priority (the same tree, but the module's
# targets are already built: that make only compiles and links the suite).
test-wasm: dist
	@echo "the wasm test suite builds beside the JS tests (log: build/wasm/suite-build.log)"
	$(BACKGROUND_PRIORITY) $(CLEAN_ENV) cmake --build --preset wasm > build/wasm/suite-build.log 2>&1 & \
	  suite=$$!; \
	  scripts/test-js untimed || { kill $$suite; exit 1; }; \
	  wait $$suite || { tail -n 60 build/wasm/suite-build.log; exit 1; }
	ctest --preset wasm -E '$(TIMED_TESTS)'

# The page as a student's browser gets it from a host: dist/'s bundles, preloaded and precompressed
# (the development tree stays at /web/, the page the tests load).
serve: build dist
	python3 web/tools/serve.py --port $(PORT) --page dist/

# Timings are not tests: the benchmark runs on demand (results: tests/bench/README.md).
bench: build
	$(CLEAN_ENV) cmake --build --preset native --target looplab_bench
	$(CLEAN_ENV) cmake --build --preset wasm --target looplab_bench
	build/native/looplab_bench 3
	node --no-experimental-fetch build/wasm/looplab_bench.js 3

# The module alone (looplab.mjs and the tests' looplab-test.mjs), without the wasm test suite.
build-wasm-module: build/wasm/.configured | deps
	$(CLEAN_ENV) cmake --build --preset wasm --target looplab_wasm looplab_wasm_test

# Static files only (no server code): deploy dist/ to any static host; the browser tests cover it.
dist: build-wasm-module
	node web/tools/build-dist.mjs dist

# Each target starts from its seed corpus (tests/fuzz/corpus/<target>, never written to) plus, for
# `make fuzz`, what earlier runs found (build/sanitize/corpus/<target>); the smoke run starts from the
# seeds only, so its time does not grow with that corpus. A crash leaves its input in test-results/fuzz/.
# The targets run side by side: libFuzzer stops each after $(1) s of wall time, so this shortens the
# wait, not the work. $(1) = seconds per target, $(2) = the writable corpus directory.
define run-fuzzers
	@mkdir -p test-results/fuzz
	@echo "fuzz_{$(subst $(space),$(comma),$(FUZZ_TARGETS))}: $(1) s each, side by side"; \
	declare -A pid; \
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(2)/$$t; \
	  build/sanitize/fuzz_$$t $(2)/$$t tests/fuzz/corpus/$$t -max_total_time=$(1) -timeout=20 \
	    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=test-results/fuzz/$$t- \
	    2> test-results/fuzz/$$t.log & pid[$$t]=$$!; \
	done; \
	failed=0; \
	for t in $(FUZZ_TARGETS); do \
	  if wait $${pid[$$t]}; then \
	    echo "fuzz_$$t: $$(grep -E '^stat::number_of_executed_units' test-results/fuzz/$$t.log)"; \
	  else \
	    echo "fuzz_$$t FAILED:"; tail -n 60 test-results/fuzz/$$t.log; failed=1; \
	  fi; \
	done; \
	exit $$failed
endef

fuzz: build-sanitize
	$(call run-fuzzers,$(FUZZ_SECONDS),build/sanitize/corpus)

fuzz-smoke: build-sanitize
	rm -rf build/sanitize/smoke
	$(call run-fuzzers,$(FUZZ_SMOKE_SECONDS),build/sanitize/smoke)

prove-recipes: deps
	$(CLEAN_ENV) scripts/prove-add-op

clean:
	rm -rf build test-results dist

distclean: clean
	rm -rf node_modules
