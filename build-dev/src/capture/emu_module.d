build-dev/src/capture/emu_module.o: src/capture/emu_module.c \
 src/capture/emu_internal.h src/emu/emu_raw.h include/hwprof/emulate.h \
 include/hwprof/hwprof.h src/util/bytes.h
src/capture/emu_internal.h:
src/emu/emu_raw.h:
include/hwprof/emulate.h:
include/hwprof/hwprof.h:
src/util/bytes.h:
