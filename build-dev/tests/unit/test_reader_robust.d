build-dev/tests/unit/test_reader_robust: tests/unit/test_reader_robust.c \
 tests/unit/testlib.h include/hwprof/hwprof.h include/hwprof/perf_abi.h \
 include/hwprof/perf_data.h src/util/bytes.h
tests/unit/testlib.h:
include/hwprof/hwprof.h:
include/hwprof/perf_abi.h:
include/hwprof/perf_data.h:
src/util/bytes.h:
