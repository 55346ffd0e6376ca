# Library detection and the config stamp (included by the Makefile).
#
# elfutils (libelf, libdw), zstd and libiberty (the static demangler perf 6.1
# links: names as perf prints them) are required: without them the build
# stops with one line. Capstone and libpfm4 are optional: a missing one disables its
# feature and is named once, when the detected set changes. `make
# HAVE_CAPSTONE= HAVE_LIBPFM=` builds as if they were missing.
#
# $(BUILD)/config.stamp holds the compiler, flags and libraries; it is
# rewritten only when they change, and every object depends on it.

CONFIG_STAMP := $(BUILD)/config.stamp

ifneq ($(BUILDING),)
have = $(shell printf '#include <$(1)>\nint main(void){return 0;}\n' | $(CC) -x c - -o /dev/null $(2) >/dev/null 2>&1 && echo 1)
HAVE_ZSTD := $(call have,zstd.h,-lzstd)
HAVE_LIBDW := $(call have,elfutils/libdw.h,-ldw -lelf)
HAVE_LIBIBERTY := $(call have,libiberty/demangle.h,-liberty)
HAVE_CAPSTONE := $(call have,capstone/capstone.h,-lcapstone)
HAVE_LIBPFM := $(call have,perfmon/pfmlib.h,-lpfm)
# export and fleet: pprof (protobuf-c, zlib) and ClickHouse over HTTP (libcurl)
HAVE_FLEET := $(call have,protobuf-c/protobuf-c.h,-lprotobuf-c)$(call have,curl/curl.h,-lcurl)$(call have,zlib.h,-lz)$(if $(shell command -v protoc-c),1)

ifneq ($(HAVE_ZSTD)$(HAVE_LIBDW)$(HAVE_LIBIBERTY),111)
$(error hwprof: cannot build without$(if $(HAVE_LIBDW),, libelf/libdw)$(if $(HAVE_ZSTD),, libzstd)$(if $(HAVE_LIBIBERTY),, libiberty): run 'make setup' (Debian packages: libelf-dev libdw-dev libzstd-dev libiberty-dev))
endif
ifneq ($(HAVE_FLEET),1111)
$(error hwprof: cannot build without protobuf-c (and protoc-c), libcurl and zlib: run 'make setup' (Debian packages: libprotobuf-c-dev protobuf-c-compiler libcurl4-openssl-dev zlib1g-dev))
endif

ALL_CFLAGS += -DHAVE_ZSTD -DHAVE_LIBDW $(if $(HAVE_CAPSTONE),-DHAVE_CAPSTONE) $(if $(HAVE_LIBPFM),-DHAVE_LIBPFM)
LIBS += -lzstd -ldw -lelf -liberty $(if $(HAVE_CAPSTONE),-lcapstone) $(if $(HAVE_LIBPFM),-lpfm) -lprotobuf-c -lcurl -lz -lm

config_q = $(subst ','\'',$(CC) | $(ALL_CFLAGS) | $(LDFLAGS) | $(LIBS))
CONFIG_CHANGED := $(shell mkdir -p $(BUILD) && if [ "$$(cat $(CONFIG_STAMP) 2>/dev/null)" != '$(config_q)' ]; then \
	printf '%s\n' '$(config_q)' >$(CONFIG_STAMP) && echo 1; fi)
ifneq ($(CONFIG_CHANGED),)
ifeq ($(HAVE_CAPSTONE),)
$(info hwprof: building without capstone (libcapstone-dev): instruction decoding disabled)
endif
ifeq ($(HAVE_LIBPFM),)
$(info hwprof: building without libpfm4 (libpfm4-dev): PMU event names (-e br_inst_retired.near_taken) disabled)
endif
endif
endif

# When a goal removed the build directory first (make clean all).
$(CONFIG_STAMP):
	@mkdir -p $(dir $@)
	printf '%s\n' '$(config_q)' >$@
