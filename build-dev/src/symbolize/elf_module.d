build-dev/src/symbolize/elf_module.o: src/symbolize/elf_module.c \
 src/symbolize/elf_module.h src/symbolize/build_id_lookup.h \
 src/symbolize/symtab.h src/symbolize/symtree.h src/util/arena.h \
 src/symbolize/dwarf_scope.h src/symbolize/line_file.h
src/symbolize/elf_module.h:
src/symbolize/build_id_lookup.h:
src/symbolize/symtab.h:
src/symbolize/symtree.h:
src/util/arena.h:
src/symbolize/dwarf_scope.h:
src/symbolize/line_file.h:
