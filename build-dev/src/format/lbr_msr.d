build-dev/src/format/lbr_msr.o: src/format/lbr_msr.c \
 include/hwprof/hwprof.h include/hwprof/lbr_msr.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h
include/hwprof/hwprof.h:
include/hwprof/lbr_msr.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
