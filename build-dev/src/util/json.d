build-dev/src/util/json.o: src/util/json.c include/hwprof/hwprof.h \
 include/hwprof/json.h include/hwprof/outbuf.h src/util/vec.h
include/hwprof/hwprof.h:
include/hwprof/json.h:
include/hwprof/outbuf.h:
src/util/vec.h:
