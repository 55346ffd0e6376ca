build-dev/src/capture/emu_exact.o: src/capture/emu_exact.c \
 src/capture/emu_internal.h src/emu/emu_raw.h include/hwprof/emulate.h \
 include/hwprof/hwprof.h include/hwprof/json.h include/hwprof/outbuf.h \
 src/util/vec.h
src/capture/emu_internal.h:
src/emu/emu_raw.h:
include/hwprof/emulate.h:
include/hwprof/hwprof.h:
include/hwprof/json.h:
include/hwprof/outbuf.h:
src/util/vec.h:
