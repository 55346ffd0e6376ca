build-dev/src/symbolize/symtab.o: src/symbolize/symtab.c \
 src/symbolize/demangle.h src/symbolize/symtab.h src/symbolize/symtree.h
src/symbolize/demangle.h:
src/symbolize/symtab.h:
src/symbolize/symtree.h:
