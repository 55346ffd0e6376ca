build-dev/src/util/error.o: src/util/error.c include/hwprof/hwprof.h
include/hwprof/hwprof.h:
