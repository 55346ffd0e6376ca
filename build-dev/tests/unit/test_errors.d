build-dev/tests/unit/test_errors: tests/unit/test_errors.c \
 include/hwprof/branch_collect.h include/hwprof/branch_table.h \
 include/hwprof/hwprof.h include/hwprof/code_loc.h \
 include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h include/hwprof/branch_report.h \
 include/hwprof/json.h include/hwprof/outbuf.h \
 include/hwprof/mispredicts.h include/hwprof/table.h tests/unit/testlib.h
include/hwprof/branch_collect.h:
include/hwprof/branch_table.h:
include/hwprof/hwprof.h:
include/hwprof/code_loc.h:
include/hwprof/session.h:
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/symbolize.h:
include/hwprof/branch_report.h:
include/hwprof/json.h:
include/hwprof/outbuf.h:
include/hwprof/mispredicts.h:
include/hwprof/table.h:
tests/unit/testlib.h:
