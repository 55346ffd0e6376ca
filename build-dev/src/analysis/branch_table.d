build-dev/src/analysis/branch_table.o: src/analysis/branch_table.c \
 include/hwprof/branch_table.h include/hwprof/hwprof.h \
 include/hwprof/code_loc.h src/analysis/branch_table_internal.h \
 include/hwprof/perf_abi.h src/util/hash.h src/util/hashmap.h \
 src/util/vec.h
include/hwprof/branch_table.h:
include/hwprof/hwprof.h:
include/hwprof/code_loc.h:
src/analysis/branch_table_internal.h:
include/hwprof/perf_abi.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/vec.h:
