# The interface people use. CMake + Ninja do the work underneath.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
COV_BUILD  ?= build-coverage
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc)
CMAKE_GEN  := -G Ninja
SHELL      := /bin/bash

# Runs ctest in directory $(1) and prints its summary line ("100% tests
# passed, 0 tests failed out of N") last, after the list of failures.
define run_ctest
	@cd $(1) && set -o pipefail && $(2) ctest --output-on-failure -j $(JOBS) 2>&1 | \
	  awk '/^[0-9]+% tests passed/ { s = $$0; next } { print; fflush() } END { if (s) print s }'
endef

.PHONY: all deps test run bench asan fuzz fuzz-ci torture coverage valgrind install conformance clean oracle

all: deps
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

# Checks the Debian packages; installs them when we are root, else says how.
deps:
	@scripts/install-deps.sh --check-or-install

oracle:
	@scripts/install-oracle.sh

test: all oracle
	$(call run_ctest,$(BUILD),)

conformance: all
	$(BUILD)/tests/test_conformance

run: all
	@scripts/quickstart.sh $(BUILD)/bin/deltalake

bench: all oracle
	@scripts/bench.sh $(BUILD)

asan: deps oracle
	@test -f $(ASAN_BUILD)/build.ninja || cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DDL_SANITIZE=ON -DCMAKE_C_COMPILER=clang
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	$(call run_ctest,$(ASAN_BUILD),ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)

fuzz: deps
	@test -f $(FUZZ_BUILD)/build.ninja || cmake -S . -B $(FUZZ_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DDL_FUZZ=ON -DDL_TESTS=OFF -DCMAKE_C_COMPILER=clang
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@scripts/fuzz.sh $(FUZZ_BUILD) $${FUZZ_SECONDS:-60}

# The failure walks (tests/unit/*/test_fail_walk_*.c) at every failure
# point, not the sample `make test` walks.
torture: all
	cd $(BUILD) && DL_TORTURE=1 ctest --output-on-failure -j $(JOBS) -R fail_walk --timeout 7200

# Line and branch coverage of src/ after the whole suite ran on a gcc
# --coverage build (scripts/coverage.sh: gcov only; HTML too with lcov).
coverage: deps oracle
	@test -f $(COV_BUILD)/build.ninja || cmake -S . -B $(COV_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DDL_COVERAGE=ON
	cmake --build $(COV_BUILD) -j $(JOBS)
	@find $(COV_BUILD) -name '*.gcda' -delete
	@# a failing test still leaves its coverage: report it, then measure
	cd $(COV_BUILD) && ctest -j $(JOBS) --output-on-failure 2>&1 | tail -40
	@scripts/coverage.sh $(COV_BUILD)

# The conformance runner under valgrind memcheck on the Release build (not in
# `make test`: it takes minutes). Any memcheck error or definite leak fails.
valgrind: all
	@scripts/valgrind.sh $(BUILD)

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(COV_BUILD)
