build-dev/src/capture/emu_qemu.o: src/capture/emu_qemu.c \
 src/capture/emu_internal.h src/emu/emu_raw.h include/hwprof/emulate.h \
 include/hwprof/hwprof.h include/hwprof/perf_abi.h src/util/path_search.h
src/capture/emu_internal.h:
src/emu/emu_raw.h:
include/hwprof/emulate.h:
include/hwprof/hwprof.h:
include/hwprof/perf_abi.h:
src/util/path_search.h:
