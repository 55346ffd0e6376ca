/* SPDX-License-Identifier: MIT */
/*
 * jitdump files (jit-PID.dump): what a JIT writes about the code it
 * generates, in the format of perf's Documentation/jitdump-specification.txt
 * (Node --perf-prof, Java's perf agent, LLVM, ...). A 40-byte header (magic
 * "JiTD" in the writer's byte order, version 1, header size, ELF machine,
 * pid, timestamp, flags), then records of a 16-byte prefix (id, size,
 * timestamp) and a payload:
 *   JIT_CODE_LOAD (0)   pid, tid, vma, code_addr, code_size, code_index,
 *                       the function's name (NUL-terminated), the code bytes
 *   JIT_CODE_MOVE (1)   pid, tid, vma, old_code_addr, new_code_addr,
 *                       code_size, code_index
 *   JIT_CODE_DEBUG_INFO (2)  code_addr, nr_entry, entries of (addr, line,
 *                       discriminator, file name): lines of the next load
 *   JIT_CODE_CLOSE (3)  nothing
 *   JIT_CODE_UNWINDING_INFO (4)  unwind data size, eh_frame_hdr size,
 *                       mapped size, the data: for the next load
 * A dump written on a machine of the other byte order is read too.
 *
 * Parsing never trusts a length: every field is checked against its record
 * and every record against the file. A record whose framing is broken
 * (size below 16, or past the end of the file: a dump cut short) ends the
 * reading there; a record that is well framed but inconsistent inside
 * (name without its NUL, code larger than the record, entries past its end)
 * is skipped. Either way what came before is kept, and the first problem
 * is remembered with its file offset for one warning.
 */
#ifndef HWPROF_SYMBOLIZE_JITDUMP_H
#define HWPROF_SYMBOLIZE_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HWP_JITDUMP_MAGIC 0x4A695444u /* "JiTD" as a uint32 of the writer */
#define HWP_JITDUMP_HEADER_SIZE 40u
#define HWP_JITDUMP_FLAG_ARCH_TIMESTAMP 1u
/* Where perf inject puts a jitted function's code in the ELF image it
   writes for it (GEN_ELF_TEXT_OFFSET: an ELF64 header and one program
   header, rounded up to 16): the pgoff of its MMAP2, and so the module
   offset of the code's first byte. */
#define HWP_JIT_TEXT_OFFSET 0x80u

enum hwp__jit_record {
	HWP_JIT_CODE_LOAD = 0,
	HWP_JIT_CODE_MOVE = 1,
	HWP_JIT_CODE_DEBUG_INFO = 2,
	HWP_JIT_CODE_CLOSE = 3,
	HWP_JIT_CODE_UNWINDING_INFO = 4,
};

/* One debug entry: the code from ADDR on is FILE:LINE. */
struct hwp__jit_line {
	uint64_t addr;
	uint32_t line;
	uint32_t discrim;
	const char *file; /* in the dump */
	uint32_t seq;     /* its place in its record */
};

/* A JIT_CODE_LOAD or JIT_CODE_MOVE, in file order. */
struct hwp__jit_code {
	bool move;
	uint64_t time;        /* the record's timestamp, as written */
	uint64_t file_offset; /* of the record */
	uint32_t pid, tid;
	uint64_t vma;
	uint64_t code_addr;   /* a load's code_addr, a move's new_code_addr */
	uint64_t old_addr;    /* a move's old_code_addr */
	uint64_t code_size;
	uint64_t code_index;
	/* the unwinding data's mapped size given before it (perf maps
	   ALIGN_8(code_size) + this much when it is not 0) */
	uint64_t unwind_mapped;
	/* loads only */
	const char *name;     /* in the dump */
	const uint8_t *code;  /* code_size bytes, in the dump */
	const struct hwp__jit_line *lines; /* sorted by addr (stable) */
	size_t n_lines;
	size_t first_line; /* lines - the dump's lines */
};

struct hwp__jitdump {
	const char *name;      /* for messages */
	const uint8_t *data;   /* the file */
	size_t size;
	bool swapped;          /* written in the other byte order */
	uint32_t version, header_size, elf_mach, pid;
	uint64_t timestamp, flags;
	struct hwp__jit_code *codes; /* loads and moves, in file order */
	size_t n_codes, n_loads, n_moves, n_debug, n_unwind, n_close, n_unknown;
	struct hwp__jit_line *lines;  /* every debug entry (codes point here) */
	size_t n_lines_total;
	/* the first problem met: its record's offset and what was wrong
	   (problems: how many records were skipped or cut off) */
	size_t problems;
	uint64_t problem_offset;
	char problem[128];
	/* hwp__jitdump_open()'s mapping */
	void *map;
	size_t map_size;
	char *owned_name;
};

/*
 * Parses DATA[0..SIZE) (borrowed: it must outlive the result), NAME for
 * messages. 0 and *OUT (records problems inside, see above), or <0 and
 * hwp_errmsg() "NAME: offset 0x0: CAUSE" when the header is unusable:
 * -EINVAL (not a jitdump: bad magic, or cut inside the header),
 * -ENOTSUP (a version after 1, or flags perf does not know), -ENOMEM.
 */
int hwp__jitdump_parse(const uint8_t *data, size_t size, const char *name, struct hwp__jitdump **out);
/* Maps the file PATH and parses it: as above, -errno when it cannot be read. */
int hwp__jitdump_open(const char *path, struct hwp__jitdump **out);
void hwp__jitdump_delete(struct hwp__jitdump *d);

/* The line of ADDR in CODE (a load): the last entry at or below ADDR;
   NULL when none is. */
const struct hwp__jit_line *hwp__jitdump_line(const struct hwp__jit_code *code, uint64_t addr);

/*
 * perf's jit_detect(): whether FILENAME (an MMAP record's) is a jitdump
 * marker "DIR/jit-PID.dump" for a mapping of process MMAP_PID (0: any,
 * as in system-wide synthesized records). *PID (may be NULL) is PID.
 */
bool hwp__jitdump_marker(const char *filename, int32_t mmap_pid, int32_t *pid);

#endif
