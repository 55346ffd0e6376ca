build-dev/src/symbolize/symbolizer.o: src/symbolize/symbolizer.c \
 include/hwprof/hwprof.h include/hwprof/symbolize.h \
 src/symbolize/build_id_lookup.h src/symbolize/demangle.h \
 src/symbolize/elf_module.h src/symbolize/symtab.h \
 src/symbolize/symtree.h src/symbolize/kallsyms.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h src/util/arena.h \
 src/util/hash.h src/util/hashmap.h src/util/opts.h src/util/vec.h
include/hwprof/hwprof.h:
include/hwprof/symbolize.h:
src/symbolize/build_id_lookup.h:
src/symbolize/demangle.h:
src/symbolize/elf_module.h:
src/symbolize/symtab.h:
src/symbolize/symtree.h:
src/symbolize/kallsyms.h:
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/util/arena.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/opts.h:
src/util/vec.h:
