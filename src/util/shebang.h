/* SPDX-License-Identifier: MIT */
/* A script's interpreter line, read as the kernel's binfmt_script reads it:
   shared by the emulated capture's driver (a script as the command) and its
   plugin (a script exec'd by the guest). */
#ifndef HWPROF_UTIL_SHEBANG_H
#define HWPROF_UTIL_SHEBANG_H

#include <stddef.h>

/* The first N bytes of a file are BUF: 1 when it is a script, with its
   interpreter in INTERP and the optional single argument in ARG (empty when
   none: the rest of the line, blanks trimmed, as one argument); 0 when BUF
   does not start with "#!"; -1 when the line names no interpreter, has no
   end within 256 bytes (fewer than 256 bytes: the file ends the line), or
   does not fit ICAP/ACAP. Callers read the first 256 bytes of the file. */
int hwp__shebang(const unsigned char *buf, size_t n, char *interp, size_t icap, char *arg,
		 size_t acap);

#endif
