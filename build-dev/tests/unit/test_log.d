build-dev/tests/unit/test_log: tests/unit/test_log.c \
 include/hwprof/hwprof.h include/hwprof/perf_writer.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/session.h include/hwprof/code_loc.h include/hwprof/maps.h \
 include/hwprof/symbolize.h tests/unit/testlib.h
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/session.h:
include/hwprof/code_loc.h:
include/hwprof/maps.h:
include/hwprof/symbolize.h:
tests/unit/testlib.h:
