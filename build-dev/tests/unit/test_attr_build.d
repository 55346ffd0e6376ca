build-dev/tests/unit/test_attr_build: tests/unit/test_attr_build.c \
 src/capture/attr_build.h include/hwprof/capture.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h include/hwprof/perf_writer.h \
 tests/unit/testlib.h
src/capture/attr_build.h:
include/hwprof/capture.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
tests/unit/testlib.h:
