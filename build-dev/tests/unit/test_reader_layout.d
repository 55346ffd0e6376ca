build-dev/tests/unit/test_reader_layout: tests/unit/test_reader_layout.c \
 include/hwprof/hwprof.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h tests/unit/testlib.h src/util/bytes.h
include/hwprof/hwprof.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
tests/unit/testlib.h:
src/util/bytes.h:
