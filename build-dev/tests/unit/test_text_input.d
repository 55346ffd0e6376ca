build-dev/tests/unit/test_text_input: tests/unit/test_text_input.c \
 tests/unit/testlib.h src/format/text_input.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h include/hwprof/hwprof.h src/util/bytes.h
tests/unit/testlib.h:
src/format/text_input.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
src/util/bytes.h:
