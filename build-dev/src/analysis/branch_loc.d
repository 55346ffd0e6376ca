build-dev/src/analysis/branch_loc.o: src/analysis/branch_loc.c \
 src/analysis/branch_loc.h include/hwprof/code_loc.h \
 include/hwprof/hwprof.h include/hwprof/symbolize.h \
 src/decode/insn_starts.h include/hwprof/branch_report.h \
 include/hwprof/branch_table.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h
src/analysis/branch_loc.h:
include/hwprof/code_loc.h:
include/hwprof/hwprof.h:
include/hwprof/symbolize.h:
src/decode/insn_starts.h:
include/hwprof/branch_report.h:
include/hwprof/branch_table.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
