build-dev/cli/record_emulate.o: cli/record_emulate.c cli/cli.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h cli/emu_progress.h include/hwprof/emulate.h \
 cli/record_opts.h
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
cli/emu_progress.h:
include/hwprof/emulate.h:
cli/record_opts.h:
