build-dev/src/emu/x86_branch.o: src/emu/x86_branch.c src/emu/x86_branch.h \
 src/emu/emu_raw.h
src/emu/x86_branch.h:
src/emu/emu_raw.h:
