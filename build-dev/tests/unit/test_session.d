build-dev/tests/unit/test_session: tests/unit/test_session.c \
 include/hwprof/branch_collect.h include/hwprof/branch_table.h \
 include/hwprof/hwprof.h include/hwprof/code_loc.h \
 include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h include/hwprof/perf_writer.h \
 tests/unit/testlib.h
include/hwprof/branch_collect.h:
include/hwprof/branch_table.h:
include/hwprof/hwprof.h:
include/hwprof/code_loc.h:
include/hwprof/session.h:
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/symbolize.h:
include/hwprof/perf_writer.h:
tests/unit/testlib.h:
