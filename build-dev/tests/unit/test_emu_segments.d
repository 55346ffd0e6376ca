build-dev/tests/unit/test_emu_segments: tests/unit/test_emu_segments.c \
 src/capture/emu_internal.h src/emu/emu_raw.h include/hwprof/emulate.h \
 include/hwprof/hwprof.h tests/unit/testlib.h
src/capture/emu_internal.h:
src/emu/emu_raw.h:
include/hwprof/emulate.h:
include/hwprof/hwprof.h:
tests/unit/testlib.h:
