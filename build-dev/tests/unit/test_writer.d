build-dev/tests/unit/test_writer: tests/unit/test_writer.c \
 include/hwprof/hwprof.h include/hwprof/perf_writer.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 tests/unit/testlib.h src/util/bytes.h
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
tests/unit/testlib.h:
src/util/bytes.h:
