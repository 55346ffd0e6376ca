build-dev/src/analysis/branch_ipc.o: src/analysis/branch_ipc.c \
 src/analysis/branch_ipc.h include/hwprof/branch_table.h \
 include/hwprof/hwprof.h include/hwprof/code_loc.h \
 include/hwprof/symbolize.h src/decode/insn_starts.h
src/analysis/branch_ipc.h:
include/hwprof/branch_table.h:
include/hwprof/hwprof.h:
include/hwprof/code_loc.h:
include/hwprof/symbolize.h:
src/decode/insn_starts.h:
