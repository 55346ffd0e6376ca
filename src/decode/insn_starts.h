/* SPDX-License-Identifier: MIT */
/*
 * Where instructions start in a piece of a binary's code, decoded linearly
 * from its start as objdump (and so perf annotate) decodes a symbol: what
 * counting instructions in a basic block needs. Capstone does the decoding
 * (x86-64; AArch64 has fixed 4-byte instructions).
 */
#ifndef HWPROF_DECODE_INSN_STARTS_H
#define HWPROF_DECODE_INSN_STARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp__code_file;

/* Opens PATH (an ELF file). NULL and errno when it cannot be read as one. */
struct hwp__code_file *hwp__code_file_open(const char *path);
/* SIZE bytes of CODE (copied) as a file whose one executable segment
   holds them at file offset = link-time address = VADDR, for machine
   MACHINE (EM_*): JIT-compiled code, laid out as perf inject lays out a
   jitted function (VADDR: its text offset, past the headers). NULL and
   errno. */
struct hwp__code_file *hwp__code_file_open_mem(const uint8_t *code, size_t size, uint64_t vaddr,
					       unsigned machine);
void hwp__code_file_close(struct hwp__code_file *f);
/* The ELF e_machine (EM_X86_64, EM_AARCH64, ...). */
unsigned hwp__code_file_machine(const struct hwp__code_file *f);
/* The bytes at file offset OFF when an executable PT_LOAD segment holds
   them: *VADDR is their link-time address, *LEFT the bytes up to the
   segment's end of file data. NULL otherwise. */
const uint8_t *hwp__code_file_at_offset(const struct hwp__code_file *f, uint64_t off, uint64_t *vaddr,
					size_t *left);
/* Link-time address -> file offset through the PT_LOAD segments' file
   data (not their zero-filled tails). 0 or -ERANGE. */
int hwp__code_file_vaddr_to_offset(const struct hwp__code_file *f, uint64_t vaddr, uint64_t *off);
/* File offset -> link-time address through the PT_LOAD segments (the
   first that holds it). 0 or -ERANGE. */
int hwp__code_file_offset_to_vaddr(const struct hwp__code_file *f, uint64_t off, uint64_t *vaddr);
/* The address of the first PT_LOAD segment (EXEC: the first executable
   one) in program-header order. False when there is none. */
bool hwp__code_file_base(const struct hwp__code_file *f, bool exec, uint64_t *vaddr);
/* A program (ET_EXEC, or a PIE: ET_DYN with PT_INTERP and no DT_SONAME),
   not a library (libc.so.6 has an interpreter too, and a soname). */
bool hwp__code_file_is_program(const struct hwp__code_file *f);
/*
 * Sets bit i of BITS (SIZE bits, zeroed by the caller) when an instruction
 * starts at VADDR + i. Undecodable bytes are skipped one at a time, as
 * objdump's "(bad)". Returns 0; -ERANGE when the range is not in an
 * executable segment of the file; -ENOTSUP when built without Capstone or
 * for another architecture.
 */
int hwp__code_file_insn_starts(struct hwp__code_file *f, uint64_t vaddr, uint64_t size, uint8_t *bits);

/*
 * What binutils' addr2line (which perf 6.1 runs for source lines) finds at
 * VADDR when DWARF has no line there: BFD's elf_find_function() takes, in
 * the section holding VADDR, the symbol (not a file, section, object or TLS
 * symbol) with the highest value <= VADDR, from .symtab (else .dynsym),
 * and names its file by the last FILE symbol before it in the table (for a
 * global symbol only when no symbol came between that FILE symbol and the
 * first). Returns 1 when a function is found (*FILE: that name or NULL), 0
 * when none is (addr2line prints "??"), <0 on error.
 */
int hwp__code_file_a2l_function(struct hwp__code_file *f, uint64_t vaddr, const char **file);

#endif
