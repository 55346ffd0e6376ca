build-dev/tests/unit/test_probe: tests/unit/test_probe.c \
 include/hwprof/hwprof.h include/hwprof/probe.h tests/unit/testlib.h
include/hwprof/hwprof.h:
include/hwprof/probe.h:
tests/unit/testlib.h:
