build-dev/tests/tools/gen_roundtrip: tests/tools/gen_roundtrip.c \
 include/hwprof/hwprof.h include/hwprof/perf_writer.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
