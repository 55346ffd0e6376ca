build-dev/src/symbolize/symtree.o: src/symbolize/symtree.c \
 src/symbolize/symtab.h src/symbolize/symtree.h
src/symbolize/symtab.h:
src/symbolize/symtree.h:
