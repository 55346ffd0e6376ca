# Library detection and the config stamp (included by the Makefile).
#
# Required: elfutils (libelf, libdw) and zstd; without them the build stops
# with one line naming the Debian packages.
# Optional, each enabling one feature, named once (when the detected set
# changes) when missing:
#   capstone    libcapstone-dev                 instruction decoding
#   pfm         libpfm4-dev                     PMU event names
#   curl        libcurl4-openssl-dev            push, fleet (ClickHouse over HTTP)
#   protobuf-c  libprotobuf-c-dev,              export --format pprof (zlib gzips it)
#               protobuf-c-compiler, zlib1g-dev
#   iberty      libiberty-dev                   demangling (perf's demangler);
#                                               without it names stay mangled
#   lzma        liblzma-dev                     kernel modules' .ko.xz files
# `make WITHOUT=curl,protobuf-c,iberty,lzma` builds as if those were missing (any
# of the names above; `make HAVE_CAPSTONE=` still works too).
#
# $(BUILD)/config.stamp holds the compiler, flags and libraries; it is
# rewritten only when they change, and every object depends on it.

CONFIG_STAMP := $(BUILD)/config.stamp
comma := ,
OPTIONAL_FEATURES := capstone pfm curl protobuf-c iberty lzma
ifneq ($(filter-out $(OPTIONAL_FEATURES),$(subst $(comma), ,$(WITHOUT))),)
$(error hwprof: WITHOUT=$(WITHOUT): the optional libraries are $(OPTIONAL_FEATURES))
endif

ifneq ($(BUILDING),)
# $(call have,HEADER,LINK FLAGS[,WITHOUT NAME]): 1 when a program including
# HEADER links with those flags, unless WITHOUT names it.
have = $(if $(filter $(3),$(subst $(comma), ,$(WITHOUT))),,$(shell printf '#include <$(1)>\nint main(void){return 0;}\n' | \
	$(CC) -x c - -o /dev/null $(2) >/dev/null 2>&1 && echo 1))
HAVE_ZSTD := $(call have,zstd.h,-lzstd)
HAVE_LIBDW := $(call have,elfutils/libdw.h,-ldw -lelf)
HAVE_CAPSTONE := $(call have,capstone/capstone.h,-lcapstone,capstone)
HAVE_LIBPFM := $(call have,perfmon/pfmlib.h,-lpfm,pfm)
HAVE_LIBCURL := $(call have,curl/curl.h,-lcurl,curl)
# pprof: the protobuf-c runtime, protoc-c to generate the C, zlib to gzip.
HAVE_PPROF := $(if $(and $(call have,protobuf-c/protobuf-c.h,-lprotobuf-c,protobuf-c),$(call \
	have,zlib.h,-lz,protobuf-c),$(shell command -v protoc-c)),1)
HAVE_LIBIBERTY := $(call have,libiberty/demangle.h,-liberty,iberty)
HAVE_LZMA := $(call have,lzma.h,-llzma,lzma)

ifneq ($(HAVE_ZSTD)$(HAVE_LIBDW),11)
$(error hwprof: cannot build without$(if $(HAVE_LIBDW),, libelf/libdw)$(if $(HAVE_ZSTD),, libzstd): run 'make setup' (Debian packages: libelf-dev libdw-dev libzstd-dev))
endif

ALL_CFLAGS += -pthread -DHAVE_ZSTD -DHAVE_LIBDW $(if $(HAVE_CAPSTONE),-DHAVE_CAPSTONE) $(if $(HAVE_LIBPFM),-DHAVE_LIBPFM) \
	$(if $(HAVE_LIBCURL),-DHAVE_LIBCURL) $(if $(HAVE_PPROF),-DHAVE_PPROF) $(if $(HAVE_LIBIBERTY),-DHAVE_LIBIBERTY) \
	$(if $(HAVE_LZMA),-DHAVE_LZMA)
LIBS += -lzstd -ldw -lelf $(if $(HAVE_LIBIBERTY),-liberty) $(if $(HAVE_CAPSTONE),-lcapstone) \
	$(if $(HAVE_LIBPFM),-lpfm) $(if $(HAVE_PPROF),-lprotobuf-c -lz) $(if $(HAVE_LIBCURL),-lcurl) \
	$(if $(HAVE_LZMA),-llzma) -lm -pthread

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
ifeq ($(HAVE_LIBCURL),)
$(info hwprof: building without libcurl (libcurl4-openssl-dev): push and fleet disabled)
endif
ifeq ($(HAVE_PPROF),)
$(info hwprof: building without protobuf-c (libprotobuf-c-dev protobuf-c-compiler zlib1g-dev): export --format pprof disabled)
endif
ifeq ($(HAVE_LIBIBERTY),)
$(info hwprof: building without libiberty (libiberty-dev): C++ and Rust names stay mangled)
endif
ifeq ($(HAVE_LZMA),)
$(info hwprof: building without liblzma (liblzma-dev): kernel modules' .ko.xz files not read)
endif
endif
endif

# When a goal removed the build directory first (make clean all).
$(CONFIG_STAMP):
	@mkdir -p $(dir $@)
	printf '%s\n' '$(config_q)' >$@
