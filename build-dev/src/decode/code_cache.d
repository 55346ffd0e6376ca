build-dev/src/decode/code_cache.o: src/decode/code_cache.c \
 src/decode/code_cache.h include/hwprof/symbolize.h \
 include/hwprof/hwprof.h src/decode/insn_starts.h src/util/hash.h \
 src/util/hashmap.h src/util/vec.h
src/decode/code_cache.h:
include/hwprof/symbolize.h:
include/hwprof/hwprof.h:
src/decode/insn_starts.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/vec.h:
