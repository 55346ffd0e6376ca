build-dev/src/symbolize/kallsyms.o: src/symbolize/kallsyms.c \
 src/symbolize/kallsyms.h src/symbolize/symtab.h src/symbolize/symtree.h \
 src/util/arena.h
src/symbolize/kallsyms.h:
src/symbolize/symtab.h:
src/symbolize/symtree.h:
src/util/arena.h:
