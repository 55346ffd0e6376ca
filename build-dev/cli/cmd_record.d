build-dev/cli/cmd_record.o: cli/cmd_record.c cli/cli.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h include/hwprof/capture.h include/hwprof/probe.h \
 cli/record_opts.h
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/capture.h:
include/hwprof/probe.h:
cli/record_opts.h:
