# Swage build: `make` builds the library, the tools and the unit tests in
# build/ (or $(BUILD)); `make test` runs every suite; `make asan` builds and
# tests with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/.
CC      ?= cc
BUILD   ?= build
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
OPT     ?= -O2 -g
SAN     ?=
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(SAN) -fPIC -Iinclude -Isrc -fvisibility=hidden
LDFLAGS += $(SAN)
LDLIBS  += -lm -lpthread -ldl

LIB_SRC  := $(sort $(wildcard src/*/*.c src/*/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TOOLS    := $(BUILD)/swage $(BUILD)/swage-opt
UNIT_SRC := $(sort $(wildcard test/unit/test_*.c))
UNITS    := $(UNIT_SRC:test/unit/%.c=$(BUILD)/%)

all: $(BUILD)/libswage.a $(BUILD)/libswage.so $(TOOLS) $(UNITS)

$(BUILD)/obj/%.o: %.c $(wildcard include/*.h src/*/*.h src/*/*/*.h src/ir/ops.def)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libswage.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libswage.so: $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/swage: tools/swage.c $(BUILD)/libswage.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libswage.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/swage-opt: tools/swage_opt.c $(BUILD)/libswage.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libswage.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/test_%: test/unit/test_%.c $(wildcard test/unit/*.h) $(BUILD)/libswage.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libswage.a $(LDFLAGS) $(LDLIBS)

# Suites. SWAGE_LIB tells the Python package which library to load.
unit: all
	@set -e; for t in $(UNITS); do echo "== $$t"; $$t; done

lit: all
	SWAGE_BUILD=$(abspath $(BUILD)) lit -sv test/lit

# pytest loads libswage.so into an uninstrumented python: a sanitizer build
# needs the ASan runtime preloaded (see asan).
ASAN_PRELOAD := $(shell $(CC) -print-file-name=libasan.so)
PYTEST_ENV ?=

pytest: all
	$(PYTEST_ENV) SWAGE_LIB=$(abspath $(BUILD))/libswage.so PYTHONPATH=$(abspath python) \
	  python3 -m pytest -q test/python

# Build, then run the vector-add example (on the CPU until the GPU backend lands).
demo: all
	SWAGE_LIB=$(abspath $(BUILD))/libswage.so PYTHONPATH=$(abspath python) python3 -m swage

test: unit lit pytest

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  PYTEST_ENV="LD_PRELOAD=$(ASAN_PRELOAD) ASAN_OPTIONS=detect_leaks=0" test

clean:
	rm -rf build build-asan

.PHONY: all unit lit pytest test asan clean demo
