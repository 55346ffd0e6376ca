build-dev/src/output/table.o: src/output/table.c include/hwprof/json.h \
 include/hwprof/hwprof.h include/hwprof/outbuf.h include/hwprof/table.h \
 src/output/markup.h src/util/arena.h
include/hwprof/json.h:
include/hwprof/hwprof.h:
include/hwprof/outbuf.h:
include/hwprof/table.h:
src/output/markup.h:
src/util/arena.h:
