build-dev/src/util/outbuf.o: src/util/outbuf.c include/hwprof/outbuf.h \
 include/hwprof/hwprof.h
include/hwprof/outbuf.h:
include/hwprof/hwprof.h:
