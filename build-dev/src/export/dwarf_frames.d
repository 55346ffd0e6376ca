build-dev/src/export/dwarf_frames.o: src/export/dwarf_frames.c \
 src/export/dwarf_frames.h include/hwprof/hwprof.h \
 src/symbolize/dwarf_scope.h src/util/vec.h
src/export/dwarf_frames.h:
include/hwprof/hwprof.h:
src/symbolize/dwarf_scope.h:
src/util/vec.h:
