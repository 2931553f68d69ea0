# Swage build.
#
#   make          the library, the command-line tools and the C unit tests in
#                 build/ (BUILD=dir for another directory), in parallel, one
#                 line per file (V=1 prints the full commands)
#   make demo     build the library and run the demo (python3 -m swage)
#   make test     every suite: C unit tests, lit/FileCheck tests and pytest.
#                 The test tools are installed into a project-local virtual
#                 environment, .venv/ (VENV=dir for another), never into your
#                 Python; ptxas, which assembles every PTX the tests emit, is
#                 the one on PATH, or else taken from NVIDIA's
#                 nvidia-cuda-nvcc wheel into .venv/ (PTXAS=/path/to/ptxas
#                 picks one, PTXAS=none skips the PTX assembly checks)
#   make asan     the same suites under AddressSanitizer + UndefinedBehaviorSanitizer,
#                 built in build-asan/
#   make tsan     the tests that use the library from several threads (the C
#                 unit tests that start threads, test/python/test_threads.py and
#                 the other Python tests that start or use threads) under
#                 ThreadSanitizer, built in build-tsan/; any race report fails it
#   make fuzz     the fuzzers (fuzz/, docs/testing.md) under ASan + UBSan with
#                 coverage guidance, built in build-fuzz/, each for a bounded time:
#                 FUZZ_TIME=seconds for each target (default 30), FUZZ_SEED=N
#                 (default 1); the same seed runs the same inputs
#   make clean    remove build/, build-asan/, build-tsan/ and build-fuzz/ (.venv/ stays:
#                 make distclean)
CC      ?= cc
BUILD   ?= build
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
OPT     ?= -O2 -g
SAN     ?=
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(SAN) -fPIC -Iinclude -Isrc -fvisibility=hidden
LDFLAGS += $(SAN)
LDLIBS  += -lm -lpthread -ldl

# Parallel by default, one job per core; `make -jN` on the command line wins.
# A sub-make (make asan) shares its parent's jobs.
ifeq ($(MAKELEVEL),0)
NPROC := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
MAKEFLAGS += -j$(NPROC)
endif

# One short line per file; V=1 prints the commands instead.
V ?= 0
ifeq ($(V),0)
Q    := @
say   = @printf '  %-6s %s\n' '$(1)' '$(2)';
else
Q    :=
say   =
endif

LIB_SRC  := $(sort $(wildcard src/*/*.c src/*/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TOOLS    := $(BUILD)/swage $(BUILD)/swage-opt
UNIT_SRC := $(sort $(wildcard test/unit/test_*.c))
UNITS    := $(UNIT_SRC:test/unit/%.c=$(BUILD)/%)
# The fuzz targets (fuzz/fuzz_*.c), each linked with the driver. COV is
# added to the library's objects only (make fuzz sets it to
# -fsanitize-coverage=trace-pc); the driver and the targets are never
# instrumented.
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZERS  := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/%)
COV      ?=

all: $(BUILD)/libswage.a $(BUILD)/libswage.so $(TOOLS) $(UNITS) $(FUZZERS)

$(BUILD)/obj/%.o: %.c $(wildcard include/*.h src/*/*.h src/*/*/*.h src/ir/ops.def)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CFLAGS) $(COV) -c $< -o $@

$(BUILD)/libswage.a: $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(BUILD)/libswage.so: $(LIB_OBJ)
	$(call say,LD,$@)$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/swage: tools/swage.c $(BUILD)/libswage.a
	$(call say,CCLD,$@)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libswage.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/swage-opt: tools/swage_opt.c $(BUILD)/libswage.a
	$(call say,CCLD,$@)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libswage.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/test_%: test/unit/test_%.c $(wildcard test/unit/*.h) $(BUILD)/libswage.a
	$(call say,CCLD,$@)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libswage.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/fuzz/driver.o: fuzz/driver.c fuzz/fuzz.h include/swage.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(BUILD)/fuzz/driver.o $(BUILD)/libswage.a
	$(call say,CCLD,$@)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/fuzz/driver.o $(BUILD)/libswage.a $(LDFLAGS) $(LDLIBS)

# ---- the test environment ------------------------------------------------------
#
# tools/testenv.sh makes .venv/ with the test tools (test/requirements.txt)
# and links .venv/bin/ptxas to the ptxas the PTX checks use: PTXAS when it is
# a path, else the first ptxas on PATH, else the one in NVIDIA's
# nvidia-cuda-nvcc wheel, installed into .venv/ from PyPI (CUDA 12.9's: it
# assembles every PTX ISA and target Swage emits). PTXAS=none skips the PTX
# assembly checks. Quick, and silent, when there is nothing to do.
PYTHON3 ?= python3
VENV    ?= .venv
VENV_PY := $(VENV)/bin/python
PTXAS   ?=
PTXAS_WHEEL ?= nvidia-cuda-nvcc-cu12==12.9.86
TEST_PTXAS := $(if $(filter none,$(PTXAS)),none,$(abspath $(VENV))/bin/ptxas)

testenv:
	@PYTHON3="$(PYTHON3)" sh tools/testenv.sh "$(VENV)" test/requirements.txt "$(PTXAS)" "$(PTXAS_WHEEL)"

# ---- suites ----------------------------------------------------------------------
#
# Every suite runs with .venv/bin first on PATH; SWAGE_PTXAS names the ptxas
# the C and Python PTX checks use ("none": skip them), and a missing one is a
# failure unless PTXAS=none. SWAGE_LIB tells the Python package which
# library to load.
TEST_ENV = PATH="$(abspath $(VENV))/bin:$$PATH" SWAGE_PTXAS="$(TEST_PTXAS)" \
           SWAGE_REQUIRE_PTXAS=$(if $(filter none,$(PTXAS)),0,1)

# pytest loads libswage.so into an uninstrumented python: a sanitizer build
# needs the ASan runtime preloaded (see asan).
ASAN_PRELOAD := $(shell $(CC) -print-file-name=libasan.so)
PYTEST_ENV ?=

RUN_UNIT   = @set -e; for t in $(UNITS); do echo "== $$t"; $(TEST_ENV) $$t; done
RUN_LIT    = @echo "== lit: FileCheck tests (test/lit)"; \
	$(TEST_ENV) SWAGE_BUILD=$(abspath $(BUILD)) $(VENV)/bin/lit -sv test/lit
RUN_PYTEST = @echo "== pytest (test/python)"; \
	$(PYTEST_ENV) $(TEST_ENV) SWAGE_LIB=$(abspath $(BUILD))/libswage.so \
	  PYTHONPATH=$(abspath python) $(VENV_PY) -m pytest -q test/python
# Every input a fuzzer ever found (fuzz/regressions/TARGET/) runs again.
RUN_FUZZ_REGRESSIONS = @echo "== fuzz regressions (fuzz/regressions)"; set -e; \
	for t in $(FUZZ_SRC:fuzz/fuzz_%.c=%); do \
	  set -- fuzz/regressions/$$t/*; if [ -f "$$1" ]; then $(BUILD)/fuzz_$$t "$$@"; fi; \
	done; \
	set -- fuzz/regressions/args/*; if [ -f "$$1" ]; then \
	  $(PYTEST_ENV) SWAGE_LIB=$(abspath $(BUILD))/libswage.so PYTHONPATH=$(abspath python) \
	    $(VENV_PY) fuzz/fuzz_args.py "$$@"; fi

# The suites run one after the other (a recipe's lines run in order even
# under -j); the build before them runs in parallel.
test: all testenv
	$(RUN_UNIT)
	$(RUN_FUZZ_REGRESSIONS)
	$(RUN_LIT)
	$(RUN_PYTEST)

unit: all testenv
	$(RUN_UNIT)
	$(RUN_FUZZ_REGRESSIONS)

lit: all testenv
	$(RUN_LIT)

pytest: all testenv
	$(RUN_PYTEST)

# Build the library, then run the demo: the segmented softmax and the vector
# add, on the GPU when PyTorch sees one, else on the CPU executor. Needs no
# Python packages.
demo: $(BUILD)/libswage.so
	$(call say,RUN,$(PYTHON3) -m swage)SWAGE_LIB=$(abspath $(BUILD))/libswage.so PYTHONPATH=$(abspath python) $(PYTHON3) -m swage

SANITIZE := OPT="-O1 -g -fno-omit-frame-pointer" SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
ASAN_PYTHON := LD_PRELOAD=$(ASAN_PRELOAD) ASAN_OPTIONS=detect_leaks=0

asan:
	@echo "== the suites under AddressSanitizer and UndefinedBehaviorSanitizer, in build-asan/"
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan $(SANITIZE) PYTEST_ENV="$(ASAN_PYTHON)" test

# ---- ThreadSanitizer -------------------------------------------------------------
#
# The library and the C unit tests that start threads (those that call
# pthread_create) are built with -fsanitize=thread into build-tsan/; those
# tests run, then the Python tests that call the library from several
# threads at once: test_threads.py (compiles, launches, the lazily built
# forms of one shared kernel, cold CUDA launches against the fake driver),
# test_cpu_failures.py (CPU launches on the helper thread that waits for
# Ctrl-C, and from other threads), test_gpu_api.py (warm CUDA launches from
# threads against the fake driver) and test_specialisation_cache.py
# (refcounted kernels evicted and released). The other Python tests start
# no thread but that helper (test_zz_ptxas.py's pool needs the whole
# suite's kernels), so they are left out to keep this quick.
#
# python is not instrumented, so the TSan runtime is preloaded into it, as
# the ASan one is for asan: into the test processes only, since sh and
# bash crash under it. halt_on_error=1 ends a run at its first report
# with exit status 66, so any race fails the target (in a pytest child
# process, its test). test/tsan/tsan.supp may suppress only reports that
# lie entirely outside libswage (see its header). First a canary: a
# deliberate race (test/tsan/canary.c) called from Python threads must be
# reported, or TSan is not active or the suppressions hide races in code
# that Python calls.
#
# -ftls-model=initial-exec puts the library's thread-locals in the static
# TLS block. With the default model, glibc mallocs each thread's copy on
# first use and frees it when it discards a dead thread's cached stack,
# under a lock TSan cannot see: a false race between ld.so's malloc and
# free, reported in about one run in eight.
TSAN_PRELOAD := $(shell $(CC) -print-file-name=libtsan.so)
TSAN_UNITS   := $(patsubst test/unit/%.c,build-tsan/%,$(shell grep -l pthread_create $(UNIT_SRC)))
TSAN_PYTEST  := test/python/test_threads.py test/python/test_cpu_failures.py \
                test/python/test_gpu_api.py test/python/test_specialisation_cache.py
TSAN_OPTS    := TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath test/tsan/tsan.supp)"
TSAN_PYTHON  := LD_PRELOAD=$(TSAN_PRELOAD) $(TSAN_OPTS)

build-tsan/libcanary.so: test/tsan/canary.c
	@mkdir -p $(dir $@)
	$(call say,CCLD,$@)$(CC) $(CSTD) $(WARN) -O1 -g -fsanitize=thread -fPIC -shared -o $@ $<

# pytest's --capture=sys leaves file descriptor 2 alone: a TSan report is
# printed as it happens, not lost with the output pytest had captured.
tsan: testenv
	@echo "== the threaded tests under ThreadSanitizer, in build-tsan/"
	$(Q)$(MAKE) --no-print-directory BUILD=build-tsan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=thread -ftls-model=initial-exec" build-tsan/libswage.so build-tsan/libcanary.so $(TSAN_UNITS)
	@echo "== canary: a deliberate race (test/tsan/canary.c) called from Python threads"
	@if $(TSAN_PYTHON) $(VENV_PY) test/tsan/canary.py build-tsan/libcanary.so \
	    >build-tsan/canary.log 2>&1; then \
	  cat build-tsan/canary.log; echo "make tsan: ThreadSanitizer missed the canary's race" >&2; exit 1; \
	elif ! grep -q "WARNING: ThreadSanitizer: data race" build-tsan/canary.log; then \
	  cat build-tsan/canary.log; echo "make tsan: the canary failed without a race report" >&2; exit 1; \
	else echo "reported, as it must be"; fi
	@set -e; for t in $(TSAN_UNITS); do echo "== $$t"; $(TSAN_OPTS) $(TEST_ENV) $$t; done
	@echo "== pytest: $(notdir $(TSAN_PYTEST))"
	@$(TSAN_PYTHON) $(TEST_ENV) SWAGE_LIB=$(abspath build-tsan)/libswage.so \
	  PYTHONPATH=$(abspath python) $(VENV_PY) -m pytest -q -rs --capture=sys $(TSAN_PYTEST)

# ---- fuzzing ---------------------------------------------------------------------
#
# Each C target mutates its seeds (fuzz/corpus/, and every past finding in
# fuzz/regressions/) for FUZZ_TIME seconds under ASan + UBSan, guided by the
# library's coverage; the launch-argument fuzzer (fuzz/fuzz_args.py) runs
# the Python layer over build-asan's library. A finding stops the run with
# the input saved in fuzz-findings/ and the command that replays it. The
# kernel fuzzer gets three times FUZZ_TIME: replaying its ~550 seed kernels
# (compiled and run on the CPU executor under ASan) takes about 25 s on a
# 2-core machine, and the budget counts it.
FUZZ_TIME ?= 30
FUZZ_SEED ?= 1
FUZZ_RUN = build-fuzz/fuzz_$(1) --seed=$(FUZZ_SEED) --time=$(2) --findings=fuzz-findings \
	$(3) $$(test -d fuzz/regressions/$(1) && echo --corpus=fuzz/regressions/$(1))

fuzz: testenv
	@echo "== fuzzing under AddressSanitizer and UndefinedBehaviorSanitizer (seed $(FUZZ_SEED), $(FUZZ_TIME) s a target, 3x that for the kernel fuzzer)"
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz $(SANITIZE) COV=-fsanitize-coverage=trace-pc \
	  $(FUZZ_SRC:fuzz/%.c=build-fuzz/%)
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan $(SANITIZE) build-asan/libswage.so
	$(call FUZZ_RUN,kernel,$$(( $(FUZZ_TIME) * 3 )),--corpus=fuzz/corpus/kernel.seeds)
	$(call FUZZ_RUN,ir,$(FUZZ_TIME),--corpus=fuzz/corpus/ir.seeds)
	$(call FUZZ_RUN,launch,$(FUZZ_TIME),)
	$(ASAN_PYTHON) SWAGE_LIB=$(abspath build-asan)/libswage.so PYTHONPATH=$(abspath python) \
	  $(VENV_PY) fuzz/fuzz_args.py --seed=$(FUZZ_SEED) --time=$(FUZZ_TIME) --findings=fuzz-findings

clean:
	rm -rf build build-asan build-tsan build-fuzz

distclean: clean
	rm -rf $(VENV) dist

.PHONY: all unit lit pytest test testenv asan tsan fuzz clean distclean demo
