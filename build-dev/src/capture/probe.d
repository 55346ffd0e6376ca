build-dev/src/capture/probe.o: src/capture/probe.c src/capture/probe.h \
 include/hwprof/probe.h include/hwprof/hwprof.h include/hwprof/lbr_msr.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h src/util/opts.h \
 src/util/vec.h
src/capture/probe.h:
include/hwprof/probe.h:
include/hwprof/hwprof.h:
include/hwprof/lbr_msr.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/util/opts.h:
src/util/vec.h:
