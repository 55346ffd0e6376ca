/* SPDX-License-Identifier: MIT */
/* The unwinder's inside, shared by unwind.c (libdwfl) and unwind_rules.c. */
#ifndef HWPROF_UNWIND_UNWIND_INTERNAL_H
#define HWPROF_UNWIND_UNWIND_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind.h"
#include "unwind/unwind_files.h"
#include "unwind/unwind_regs.h"

typedef struct Dwfl Dwfl;
typedef struct Dwfl_Module Dwfl_Module;

/* A module reported to a space's Dwfl: [lo, hi) at BIAS, of file F. */
struct hwp__smod {
	Dwfl_Module *mod;
	uint64_t lo, hi, bias;
	struct hwp__ufile *f;
	/* the last mapping found to hold it (start, offset, name as the
	   machine keeps it): the same one again needs no second look */
	uint64_t map_start, map_pgoff;
	const char *map_file;
};

/* One address space (a process' maps) as a Dwfl. */
struct hwp__space {
	struct hwp__unwinder *u;
	const void *key; /* hwp__thread_maps_key() */
	uint16_t e_machine;
	uint64_t used;   /* for the least-recently-used eviction */
	Dwfl *dwfl;
	struct Elf *arch; /* an ELF header alone, naming the architecture */
	uint64_t ehdr[8]; /* its bytes (64, aligned) */
	struct hwp__smod *mods;
	size_t nmods, mods_cap;
	bool stale;       /* a frame found a module that moved, or a module kept is
			     gone: MODS are not to be used until the space restarts */
};

#define MAX_SPACES_KEPT 16 /* address spaces kept at once (the least recently used goes) */

struct hwp__unwinder {
	struct hwp__ufiles files;
	uint16_t e_machine;
	bool no_rules;
	struct hwp__space *spaces[MAX_SPACES_KEPT];
	size_t nspaces;
	uint64_t clock;
	struct hwp__unwind_stats st;
	unsigned said; /* stacks ending early told in the debug log */

	/* the sample being unwound */
	const struct hwp_thread *th;
	struct hwp__dwarf_regs regs;
	const uint8_t *stack;
	uint64_t stack_len;
	bool stack_full; /* the copy filled the size asked for */
	uint64_t *ips;
	size_t max, n;
	/* how its last step went */
	int read_fail;     /* a memory read failed: HWP__UNWIND_STACK_SHORT, _STOPPED or
			      HWP__READ_TOP; 0 */
	bool last_no_file; /* the last frame is in no binary found */
	bool last_fp_zero; /* the last frame's frame pointer is 0: the ABI's outermost frame */
	bool hit_max;
	/* the previous frame's lookup address and module (libdwfl path) */
	uint64_t prev_look;
	size_t prev_mod; /* its index in the space's modules + 1; 0: none */
	int dwfl_err;      /* <0: an error to return */
	/* x86-64's rbx carried through rows that leave it unspecified (libdwfl
	   path, see frame_callback()): the previous frame's, when known */
	uint64_t prev_rbx;
	bool prev_rbx_ok;
	const struct hwp__dwarf_regs *init; /* the registers libdwfl's run starts from */
	struct hwp__dwarf_regs restart;     /* a frame's, rbx carried: the next run's start */
	bool restarting;                    /* the run stopped to go on from RESTART */
	bool skip_first;                    /* the run's first frame is recorded already */
};

/* A read past a stack copy that holds the whole stack (it is shorter than
   asked for): the outermost frame's caller is being read, the stack ends. */
#define HWP__READ_TOP 100

/* How an unwinding whose last step ended with READ_FAIL ended. */
static inline int hwp__unwind_read_end(int read_fail)
{
	return read_fail == HWP__READ_TOP ? HWP__UNWIND_DONE : read_fail;
}

/* hwp__space_report()'s answers besides 0 (the module is reported) */
#define HWP__REPORT_NO_FILE 1 /* no file behind the address (anonymous or pseudo: JIT code, [vdso]) */
#define HWP__REPORT_MISSING 3 /* a file that was not found */
#define HWP__REPORT_STALE 2   /* the space had another module there */

/* Reports the module holding PC (once per space); *OUT the module. */
int hwp__space_report(struct hwp__space *sp, uint64_t pc, struct hwp__smod **out);
struct hwp__smod *hwp__space_mod_at(struct hwp__space *sp, uint64_t pc);

/* 8 bytes at ADDR of the sample being unwound: the stack copy, else the
   mapped file. False (and u->read_fail set) when neither has them. */
bool hwp__unwind_read(struct hwp__unwinder *u, uint64_t addr, uint64_t *val);

#endif
