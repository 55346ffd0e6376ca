build-dev/tests/unit/test_json: tests/unit/test_json.c \
 include/hwprof/hwprof.h include/hwprof/json.h include/hwprof/outbuf.h \
 tests/unit/testlib.h
include/hwprof/hwprof.h:
include/hwprof/json.h:
include/hwprof/outbuf.h:
tests/unit/testlib.h:
