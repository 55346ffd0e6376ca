build-dev/src/output/markup.o: src/output/markup.c src/output/markup.h \
 include/hwprof/outbuf.h include/hwprof/hwprof.h
src/output/markup.h:
include/hwprof/outbuf.h:
include/hwprof/hwprof.h:
