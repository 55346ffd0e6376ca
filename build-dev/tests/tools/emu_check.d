build-dev/tests/tools/emu_check: tests/tools/emu_check.c \
 include/hwprof/hwprof.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h
include/hwprof/hwprof.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
