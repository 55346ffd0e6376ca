build-dev/src/capture/emu_raw.o: src/capture/emu_raw.c \
 src/capture/emu_internal.h src/emu/emu_raw.h include/hwprof/emulate.h \
 include/hwprof/hwprof.h src/util/vec.h
src/capture/emu_internal.h:
src/emu/emu_raw.h:
include/hwprof/emulate.h:
include/hwprof/hwprof.h:
src/util/vec.h:
