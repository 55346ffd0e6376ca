build-dev/tests/unit/test_maps: tests/unit/test_maps.c \
 include/hwprof/hwprof.h include/hwprof/perf_writer.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/outbuf.h include/hwprof/perf_script.h \
 include/hwprof/maps.h tests/unit/testlib.h src/util/bytes.h
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/outbuf.h:
include/hwprof/perf_script.h:
include/hwprof/maps.h:
tests/unit/testlib.h:
src/util/bytes.h:
