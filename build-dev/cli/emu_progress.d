build-dev/cli/emu_progress.o: cli/emu_progress.c cli/emu_progress.h \
 cli/cli.h include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h include/hwprof/emulate.h
cli/emu_progress.h:
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/emulate.h:
