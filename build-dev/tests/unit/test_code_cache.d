build-dev/tests/unit/test_code_cache: tests/unit/test_code_cache.c \
 src/decode/code_cache.h include/hwprof/symbolize.h \
 include/hwprof/hwprof.h tests/unit/testlib.h
src/decode/code_cache.h:
include/hwprof/symbolize.h:
include/hwprof/hwprof.h:
tests/unit/testlib.h:
