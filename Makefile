# hwprof build. `make` builds; `make demo` sets up, builds and runs the main
# report on the bundled example; `make test` runs every test.
# SAN=1 builds into build-san/ with ASan+UBSan.

CC ?= cc
ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1 -g
else
BUILD ?= build
SANFLAGS :=
OPT := -O2 -g
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
CFLAGS ?= $(OPT)
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -Isrc -MMD -MP
LDFLAGS += $(SANFLAGS)

# Optional libraries: detected, each disabling its feature when missing.
have = $(shell printf '#include <$(1)>\nint main(void){return 0;}\n' | $(CC) -x c - -o /dev/null $(2) >/dev/null 2>&1 && echo 1)
ifeq ($(call have,zstd.h,-lzstd),1)
ALL_CFLAGS += -DHAVE_ZSTD
LIBS += -lzstd
endif
ifeq ($(call have,elfutils/libdw.h,-ldw -lelf),1)
ALL_CFLAGS += -DHAVE_LIBDW
LIBS += -ldw -lelf
endif
ifeq ($(call have,capstone/capstone.h,-lcapstone),1)
ALL_CFLAGS += -DHAVE_CAPSTONE
LIBS += -lcapstone
endif
ifeq ($(call have,perfmon/pfmlib.h,-lpfm),1)
ALL_CFLAGS += -DHAVE_LIBPFM
LIBS += -lpfm
endif
LIBS += -lm

LIB_SRCS := $(sort $(shell find src -name '*.c' -not -path 'src/emu/*'))
CLI_SRCS := $(sort $(wildcard cli/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c bench/*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
TOOL_BINS := $(TOOL_SRCS:%.c=$(BUILD)/%)

LIBA := $(BUILD)/libhwprof.a
HWPROF := $(BUILD)/hwprof
# The QEMU TCG plugin is loaded into qemu-x86_64: built without sanitizers.
EMU_SRCS := $(sort $(wildcard src/emu/*.c))
EMU_SO := $(if $(EMU_SRCS),$(BUILD)/hwprof-emu.so)

.PHONY: all setup demo test test-san fuzz bench clean
all: $(HWPROF) $(UNIT_BINS) $(TOOL_BINS) $(EMU_SO)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(HWPROF): $(CLI_OBJS) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIBA) $(LIBS)

$(BUILD)/hwprof-emu.so: $(EMU_SRCS) $(wildcard src/emu/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g -fPIC -shared -fvisibility=hidden -Iinclude -Isrc -o $@ $(EMU_SRCS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIBA) tests/unit/testlib.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

$(BUILD)/bench/%: bench/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

setup:
	@scripts/setup.sh

demo: setup
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh $(HWPROF)

test: setup
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) tests/run.sh

test-san:
	@$(MAKE) --no-print-directory SAN=1 all
	@BUILD=build-san tests/run.sh

# libFuzzer targets (clang). FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=build-fuzz/%)
build-fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_common.h $(LIB_SRCS)
	@mkdir -p build-fuzz
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
		$(filter -DHAVE_%,$(ALL_CFLAGS)) -o $@ $< $(LIB_SRCS) $(LIBS)
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

bench: all
	@bench/run.sh $(BUILD)

clean:
	rm -rf build build-san build-fuzz

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d)
