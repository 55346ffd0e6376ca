build-dev/tests/unit/test_emu_decoder: tests/unit/test_emu_decoder.c \
 src/emu/x86_branch.c src/emu/x86_branch.h src/emu/emu_raw.h \
 tests/unit/testlib.h
src/emu/x86_branch.c:
src/emu/x86_branch.h:
src/emu/emu_raw.h:
tests/unit/testlib.h:
