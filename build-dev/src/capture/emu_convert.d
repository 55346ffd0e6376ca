build-dev/src/capture/emu_convert.o: src/capture/emu_convert.c \
 src/capture/emu_internal.h src/emu/emu_raw.h include/hwprof/emulate.h \
 include/hwprof/hwprof.h include/hwprof/perf_abi.h \
 include/hwprof/perf_writer.h include/hwprof/perf_data.h src/util/vec.h
src/capture/emu_internal.h:
src/emu/emu_raw.h:
include/hwprof/emulate.h:
include/hwprof/hwprof.h:
include/hwprof/perf_abi.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
src/util/vec.h:
