build-dev/src/decode/insn_starts.o: src/decode/insn_starts.c \
 src/decode/insn_starts.h
src/decode/insn_starts.h:
