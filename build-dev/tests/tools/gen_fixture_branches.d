build-dev/tests/tools/gen_fixture_branches: \
 tests/tools/gen_fixture_branches.c include/hwprof/hwprof.h \
 include/hwprof/perf_writer.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
