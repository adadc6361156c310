# SPDX-License-Identifier: BSD-3-Clause
# Locus MPI — convenience targets around CMake.  See README.md.
#   make            set up the machine (Debian packages) and build into build/
#   make run        build, then run a real 4-rank MPI job on this host
#   make test       the whole test suite: plain build, then ASan+UBSan build
#   make stress     the long stress runs (ctest label stress, not in make test)
#   make install PREFIX=/opt/locus
#   make bench [QUICK=1]   Locus side by side with MPICH and Open MPI
#   make params-doc        regenerate docs/params.md from the parameter tables
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
PREFIX     ?= /usr/local
JOBS       ?= 2
NP         ?= 4
# Debian's python3 (where setup.sh installs matplotlib for the plots),
# even when another python3 comes first in PATH.
PYTHON     ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)

.PHONY: all setup build run test test-plain test-asan test-tsan stress install bench params-doc clean

all: build

setup:
	@sh scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

run: build
	@mkdir -p $(BUILD)/examples
	$(BUILD)/bin/mpicc -O2 -o $(BUILD)/examples/ring examples/ring.c
	LOCUS_SHOW_CHANNELS=1 $(BUILD)/bin/mpiexec -n $(NP) $(BUILD)/examples/ring

test: test-plain test-asan

# The stress label (minutes of repetitions) runs only with `make stress`
# (elsewhere its tests skip unless LOCUS_STRESS=1).
test-plain: build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j$(JOBS) -LE stress

test-asan: setup
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DLOCUS_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure --timeout 300 -j$(JOBS) -LE stress

# ThreadSanitizer on the MPI_THREAD_MULTIPLE tests (not part of `make test`:
# a third build; docs/architecture.md "Threads").
test-tsan: setup
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DLOCUS_TSAN=ON >/dev/null
	@cmake --build $(TSAN_BUILD) -j$(JOBS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure --timeout 300 -j$(JOBS) -R '^(mpi|ofi)\.(threads_|init_thread|async_progress|thread_stress\.[0-9]+\.[0-9]+(\.mixed)?$$)'

stress: build
	cd $(BUILD) && LOCUS_STRESS=1 ctest --output-on-failure -L stress

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# docs/params.md is generated from the parameter tables (test unit.params_doc).
params-doc: build
	$(BUILD)/bin/locus-info --params --markdown > docs/params.md

bench: build
	$(PYTHON) bench/compare.py $(if $(QUICK),--quick,)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
