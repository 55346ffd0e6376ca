build-dev/src/output/perf_script.o: src/output/perf_script.c \
 include/hwprof/perf_script.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h include/hwprof/hwprof.h \
 include/hwprof/outbuf.h include/hwprof/maps.h src/util/bytes.h
include/hwprof/perf_script.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/outbuf.h:
include/hwprof/maps.h:
src/util/bytes.h:
