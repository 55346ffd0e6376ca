build-dev/src/capture/emulate.o: src/capture/emulate.c \
 src/capture/emu_internal.h src/emu/emu_raw.h include/hwprof/emulate.h \
 include/hwprof/hwprof.h include/hwprof/perf_abi.h \
 include/hwprof/perf_writer.h include/hwprof/perf_data.h src/util/opts.h
src/capture/emu_internal.h:
src/emu/emu_raw.h:
include/hwprof/emulate.h:
include/hwprof/hwprof.h:
include/hwprof/perf_abi.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
src/util/opts.h:
