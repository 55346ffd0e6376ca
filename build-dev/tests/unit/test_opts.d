build-dev/tests/unit/test_opts: tests/unit/test_opts.c \
 include/hwprof/capture.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h include/hwprof/hwprof.h \
 include/hwprof/emulate.h tests/unit/testlib.h src/util/opts.h
include/hwprof/capture.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/emulate.h:
tests/unit/testlib.h:
src/util/opts.h:
