build-dev/src/util/opts.o: src/util/opts.c include/hwprof/hwprof.h \
 src/util/opts.h
include/hwprof/hwprof.h:
src/util/opts.h:
