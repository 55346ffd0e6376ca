build-dev/cli/cmd_check.o: cli/cmd_check.c cli/cli.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h include/hwprof/json.h include/hwprof/outbuf.h \
 include/hwprof/lbr_msr.h include/hwprof/probe.h
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/json.h:
include/hwprof/outbuf.h:
include/hwprof/lbr_msr.h:
include/hwprof/probe.h:
