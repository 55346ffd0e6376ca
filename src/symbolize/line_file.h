/* SPDX-License-Identifier: MIT */
/*
 * Which source file a DWARF line-table row names, as binutils reads it --
 * and so as perf 6.1 prints it, whose srcline is addr2line's first line.
 *
 * The two readers differ on DWARF 5 line tables only. The standard starts
 * each sequence with the file register at 1 (libdw follows it); binutils'
 * BFD starts it at file 0, the primary source file. gas never emits a
 * DW_LNS_set_file for the file the register already holds, so the rows of a
 * sequence before its first DW_LNS_set_file are the ones in dispute: glibc's
 * __ctype_b_loc, an extern inline from include/ctype.h (file 1) compiled in
 * ctype/ctype-info.c (file 0), is "ctype.h:42" to libdw and eu-addr2line,
 * "ctype-info.c:42" to addr2line and perf. hwprof takes binutils' reading.
 *
 * libdw's rows are sorted by address and carry no sequence, so where each
 * sequence's first DW_LNS_set_file falls is read from the line program
 * itself (a small walk of its opcodes; libdw still decodes the rows).
 */
#ifndef HWPROF_SYMBOLIZE_LINE_FILE_H
#define HWPROF_SYMBOLIZE_LINE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

/* Per CU, built on first use; zero-initialized = not yet. */
struct hwp_line_files {
	bool scanned;
	struct hwp_addr_span *spans; /* rows before a sequence's first set_file */
	uint64_t *max_hi;            /* max_hi[i] = max(spans[0..i].hi) */
	size_t n;
};

/* The file LINE (a row of CUDIE's table) is in, as binutils names it;
   NULL when libdw knows none. -ENOMEM in *ERR (else 0). */
const char *hwp__line_file_name(struct hwp_line_files *lf, Dwarf *dw, Dwarf_Die *cudie,
				Dwarf_Line *line, int *err);
void hwp__line_files_free(struct hwp_line_files *lf);

#endif
