build-dev/src/format/attr_names.o: src/format/attr_names.c \
 include/hwprof/attr_names.h include/hwprof/hwprof.h \
 include/hwprof/perf_abi.h
include/hwprof/attr_names.h:
include/hwprof/hwprof.h:
include/hwprof/perf_abi.h:
