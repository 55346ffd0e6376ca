build-dev/cli/hwprof.o: cli/hwprof.c cli/cli.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h include/hwprof/hwprof.h
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
