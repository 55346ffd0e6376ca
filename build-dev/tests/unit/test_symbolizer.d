build-dev/tests/unit/test_symbolizer: tests/unit/test_symbolizer.c \
 include/hwprof/hwprof.h include/hwprof/perf_writer.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h src/symbolize/build_id_lookup.h \
 src/symbolize/demangle.h tests/unit/testlib.h
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/symbolize.h:
src/symbolize/build_id_lookup.h:
src/symbolize/demangle.h:
tests/unit/testlib.h:
