build-dev/src/emu/plugin.o: src/emu/plugin.c src/emu/emu_raw.h \
 src/emu/qemu_api.h src/util/hash.h src/util/hashmap.h src/util/vec.h \
 src/emu/x86_branch.h
src/emu/emu_raw.h:
src/emu/qemu_api.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/vec.h:
src/emu/x86_branch.h:
