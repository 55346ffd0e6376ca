build-dev/tests/unit/test_lbr_msr: tests/unit/test_lbr_msr.c \
 include/hwprof/lbr_msr.h include/hwprof/hwprof.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 tests/unit/testlib.h
include/hwprof/lbr_msr.h:
include/hwprof/hwprof.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
tests/unit/testlib.h:
