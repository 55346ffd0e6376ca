# hwprof build. `make` builds; `make demo` sets up, builds and runs the main
# report on the bundled example; `make test` runs every test; `make install`
# installs (PREFIX=/usr/local, DESTDIR, BINDIR, LIBDIR, INCLUDEDIR, MANDIR);
# `make deb` builds the Debian packages into $(BUILD)/deb/. `make setup`
# installs what building needs; demo, test and deb install what they need
# (scripts/setup.sh). WITHOUT=curl,protobuf-c,iberty builds without those
# optional libraries (mk/config.mk).
# SAN=1 builds into build-san/ with ASan+UBSan; BUILD=DIR builds elsewhere.

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

# Goals that compile nothing in this make (test and demo run setup first, then
# a sub-make that builds): no library check, no config stamp.
NOBUILD_GOALS := setup clean uninstall test test-san demo deb
BUILDING := $(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all))

include mk/config.mk

VERSION := $(shell sed -n 's/.*define HWPROF_VERSION "\(.*\)"/\1/p' include/hwprof/hwprof.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))

LIB_SRCS := $(sort $(shell find src -name '*.c' -not -path 'src/emu/*'))
CLI_SRCS := $(sort $(wildcard cli/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c bench/*.c))
EMU_SRCS := $(sort $(wildcard src/emu/*.c))
# The plugin links only these library sources (no elfutils, no zstd), compiled
# again into $(BUILD)/emu/ with the plugin's flags.
EMU_UTIL_SRCS := src/util/big_alloc.c src/util/hashmap.c src/util/shebang.c src/util/vec.c

# C generated from .proto files by protoc-c at build time, into $(BUILD)/gen/
# (pprof export: only when mk/config.mk found protobuf-c).
PROTO_SRCS := $(if $(HAVE_PPROF),$(sort $(shell find src -name '*.proto')))
PROTO_GEN := $(PROTO_SRCS:%.proto=$(BUILD)/gen/%.pb-c.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(PROTO_GEN:%.c=%.o)
# the --help descriptions, generated from the manuals (scripts/helpdoc.py help)
HELP_TEXT_OBJ := $(BUILD)/gen/cli/help_text.o
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o) $(HELP_TEXT_OBJ)
EMU_OBJS := $(EMU_SRCS:%.c=$(BUILD)/%.o) $(EMU_UTIL_SRCS:%.c=$(BUILD)/emu/%.o)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
TOOL_BINS := $(TOOL_SRCS:%.c=$(BUILD)/%)

LIBA := $(BUILD)/libhwprof.a
SONAME := libhwprof.so.$(SOMAJOR)
LIBSO := $(BUILD)/libhwprof.so.$(VERSION)
HWPROF := $(BUILD)/hwprof
# The QEMU TCG plugin is loaded into qemu-x86_64: built without sanitizers.
EMU_SO := $(if $(EMU_SRCS),$(BUILD)/hwprof-emu.so)
MAN_STAMP := $(BUILD)/man/.stamp
COMPLETION := $(BUILD)/completion/hwprof

.DEFAULT_GOAL := all
.PHONY: all setup demo deb test test-san test-long fuzz bench bench-emulate bench-dwarf bench-pgo-e2e bench-propeller bench-stale clean install uninstall
all: $(HWPROF) $(LIBA) $(BUILD)/libhwprof.so $(UNIT_BINS) $(TOOL_BINS) $(EMU_SO) $(MAN_STAMP) $(COMPLETION)

# Every object depends on the config stamp: a changed compiler, flag or
# detected library rebuilds everything.
$(BUILD)/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# protoc-c's output, compiled without -Werror's extra warnings (not our code).
$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: %.proto
	@mkdir -p $(dir $@)
	cd $(dir $<) && protoc-c --c_out=$(abspath $(dir $@)) $(notdir $<)
$(BUILD)/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c $(CONFIG_STAMP)
	$(CC) -std=c11 -D_GNU_SOURCE $(CFLAGS) $(SANFLAGS) -fPIC -fvisibility=hidden -c $< -o $@
# A library source including generated headers finds them in $(BUILD)/gen/.
ifneq ($(HAVE_PPROF),)
# the sources that include the generated protobuf header (found, so that a new
# one cannot be left out of the fuzz build's rule below)
PPROF_USERS := $(patsubst %.c,%.o,$(shell grep -l 'profile.pb-c.h' src/export/*.c))
$(addprefix $(BUILD)/,$(PPROF_USERS)): $(BUILD)/gen/src/export/profile.pb-c.h
$(addprefix $(BUILD)/,$(PPROF_USERS)): ALL_CFLAGS += -I$(BUILD)/gen/src/export
endif

# The commands see the public headers only: what they need of the library
# a program on libhwprof needs too (tests/e2e/layering.sh says so too).
$(BUILD)/cli/%.o: cli/%.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -Isrc,$(ALL_CFLAGS)) -c $< -o $@

$(BUILD)/gen/cli/help_text.c: scripts/helpdoc.py $(wildcard docs/hwprof-*.md)
	python3 scripts/helpdoc.py help docs $@

$(HELP_TEXT_OBJ): $(BUILD)/gen/cli/help_text.c $(CONFIG_STAMP)
	$(CC) $(filter-out -Isrc,$(ALL_CFLAGS)) -Icli -c $< -o $@

# Library objects serve both libhwprof.a and libhwprof.so: position
# independent, and only what include/hwprof marks HWP_API is exported.
$(LIB_OBJS): ALL_CFLAGS += -fPIC -fvisibility=hidden

$(LIBA): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBSO): $(LIB_OBJS) libhwprof.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=libhwprof.map $(if $(SANFLAGS),,-Wl,-z,defs) \
		$(LDFLAGS) -o $@ $(LIB_OBJS) $(LIBS)

$(BUILD)/$(SONAME): $(LIBSO)
	ln -sf $(notdir $<) $@

$(BUILD)/libhwprof.so: $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(HWPROF): $(CLI_OBJS) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIBA) $(LIBS)

EMU_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g -fPIC -fvisibility=hidden -Iinclude -Isrc -MMD -MP
$(BUILD)/src/emu/%.o: src/emu/%.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_CFLAGS) -c $< -o $@

$(BUILD)/emu/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_CFLAGS) -c $< -o $@

$(BUILD)/hwprof-emu.so: $(EMU_OBJS)
	$(CC) -shared -o $@ $^

# Unit tests, tools and benchmarks: one source each, compiled and linked in
# one step (-MMD writes $@.d).
$(BUILD)/tests/unit/%: tests/unit/%.c $(LIBA) $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIBA) $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

$(BUILD)/bench/%: bench/%.c $(LIBA) $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

# Man pages from the manuals in docs/ and the options of the --help texts;
# bash completion from the --help texts (docs/README.md).
$(MAN_STAMP): $(HWPROF) scripts/helpdoc.py $(wildcard docs/hwprof*.md)
	python3 scripts/helpdoc.py man $(HWPROF) $(dir $@) docs
	@touch $@

$(COMPLETION): $(HWPROF) scripts/helpdoc.py
	@mkdir -p $(dir $@)
	python3 scripts/helpdoc.py bash $(HWPROF) $@

include mk/install.mk

setup:
	@scripts/setup.sh build

demo:
	@scripts/setup.sh demo
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh $(HWPROF)

test:
	@scripts/setup.sh test
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) tests/run.sh

# hwprof, libhwprof0 and libhwprof-dev (debian/, scripts/deb.sh): nothing is
# rebuilt while the .debs are newer than every source file.
deb:
	@scripts/setup.sh deb
	@scripts/deb.sh $(BUILD)/deb

test-san:
	@$(MAKE) --no-print-directory SAN=1 all
	@SAN=1 BUILD=build-san tests/run.sh

# Long end-to-end flows, not part of make test (minutes; .ci/run runs them):
# PGO with hwprof's profiles against the established tools' (tests/long/).
test-long: all
	@BUILD=$(BUILD) tests/run.sh long/pgo_e2e long/pgo_propeller long/pgo_cs

# libFuzzer targets (clang): the library compiled once into build-fuzz/obj.
# FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -Iinclude -Isrc $(filter -DHAVE_%,$(ALL_CFLAGS)) -MMD -MP
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=build-fuzz/%)
FUZZ_OBJS := $(FUZZ_SRCS:%.c=build-fuzz/obj/%.o)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=build-fuzz/obj/%.o) $(PROTO_GEN:%.c=%.o)
ifneq ($(HAVE_PPROF),)
$(addprefix build-fuzz/obj/,$(PPROF_USERS)): $(BUILD)/gen/src/export/profile.pb-c.h
$(addprefix build-fuzz/obj/,$(PPROF_USERS)): FUZZ_CFLAGS += -I$(BUILD)/gen/src/export
endif
build-fuzz/obj/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c $< -o $@
build-fuzz/%: build-fuzz/obj/tests/fuzz/%.o $(FUZZ_LIB_OBJS)
	clang -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS)
# Kept between runs (make deletes intermediates of pattern-rule chains).
.SECONDARY: $(FUZZ_OBJS) $(FUZZ_LIB_OBJS)
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

# One table: every report, hwprof against the established tool (BENCH_MB=100
# for a quick run; default 1.1 GB).
bench: all
	@bench/run.sh $(BUILD)

# Emulated capture only: native vs qemu-x86_64 vs record --emulate on real programs.
bench-emulate: all
	@bench/emulate.sh $(BUILD)

# DWARF unwinding against perf 6.1 (bench/dwarf.sh; DWARF_MB sizes the recording)
bench-dwarf: all
	@bench/dwarf.sh $(BUILD)

# The speedups of PGO (clang, BOLT) with hwprof's profiles and the others'.
bench-pgo-e2e: all
	@bench/pgo_e2e.sh $(BUILD)

bench-propeller: all
	@bench/pgo_propeller.sh $(BUILD)

# Stale profiles: N's recording matched onto N+1, against as is, fresh and none.
bench-stale: all
	@bench/pgo_stale.sh $(BUILD)

clean:
	rm -rf build build-* $(BUILD)

# Header dependencies of everything compiled (-MMD -MP).
-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(EMU_OBJS:.o=.d) $(UNIT_BINS:=.d) $(TOOL_BINS:=.d) \
	$(FUZZ_OBJS:.o=.d) $(FUZZ_LIB_OBJS:.o=.d)
