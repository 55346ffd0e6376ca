/* SPDX-License-Identifier: MIT */
/*
 * The answers on the code: one function's instructions (decoded as objdump
 * and perf annotate show them) with what a recording knows about each one,
 * from a pipeline that has run:
 *   - the samples whose IP is the instruction;
 *   - at a conditional branch its executions, taken probability and
 *     mispredicts (the flow analysis), at an indirect one its targets;
 *   - at a basic block's start its executions and, from branch-record cycle
 *     counts, its latency and IPC (the timing analysis);
 *   - at a load or store its memory samples, latency and data sources.
 *
 *     struct hwp_annotate_opts o = { .sz = sizeof(o), .sym = "main" };
 *     struct hwp_annotation *a = hwp_annotate__new(pipeline, &o);
 *     const struct hwp_annotate_func *f; size_t nf = hwp_annotation__functions(a, &f);
 *     const struct hwp_annotate_insn *in; size_t n = hwp_annotation__insns(a, &in);
 *     // f[k]'s instructions are in[f[k].first .. f[k].first + f[k].n)
 *
 * Pointers into the analyses' results (cond, block, timing, mem) stay valid
 * while the pipeline lives.
 */
#ifndef HWPROF_ANNOTATE_H
#define HWPROF_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hwprof/code_loc.h"
#include "hwprof/flow.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/pipeline.h"
#include "hwprof/timing.h"

HWP_BEGIN_DECLS

struct hwp_annotate_opts {
	size_t sz;        /* sizeof(struct hwp_annotate_opts) */
	const char *sym;  /* the function of this name (as reports print it) */
	bool has_addr;    /* else the function holding ADDR (its ELF address, as */
	uint64_t addr;    /* objdump and perf annotate print it) */
	/* Neither: the hottest functions by samples, at most LIMIT (0: 5). */
	size_t limit;
	/* And after those, each once, the functions holding ALSO[0..NALSO)
	   (sampled or not: a finding's branch may be in a function no sample
	   IP landed in). */
	const struct hwp_code_loc *also;
	size_t nalso;
};

/* What an instruction does to the flow of control. */
enum hwp_annotate_kind {
	HWP_ANNOTATE_OTHER,
	HWP_ANNOTATE_COND,
	HWP_ANNOTATE_JUMP,
	HWP_ANNOTATE_IND_JUMP,
	HWP_ANNOTATE_CALL,
	HWP_ANNOTATE_IND_CALL,
	HWP_ANNOTATE_RET,
};

struct hwp_annotate_insn {
	uint64_t vaddr;            /* link-time address */
	struct hwp_code_loc loc;   /* module and file offset, as every report keys code */
	uint8_t len;
	const char *mnemonic, *operands;
	uint8_t kind;              /* enum hwp_annotate_kind */
	bool has_target;           /* a direct branch: its target's link-time address */
	uint64_t target;
	const char *file;          /* its source line (innermost inline frame); NULL: none */
	unsigned line;
	uint64_t samples;          /* samples whose IP is this instruction */
	const struct hwp_flow_cond *cond;         /* a conditional branch seen in ranges */
	const struct hwp_flow_indirect *indirect; /* an indirect branch's targets */
	const struct hwp_flow_block *block;       /* a block starting here: executions */
	const struct hwp_timing_block *timing;    /* the same block timed */
	const struct hwp_mem_group *mem;          /* memory samples of this instruction */
	/* its samples per event of hwp_annotation__events(), when the
	   recording sampled several (NULL otherwise) */
	const uint64_t *event_samples;
};

struct hwp_annotate_func {
	const char *name;
	int32_t module;
	uint64_t vaddr, size;      /* link-time start and size */
	uint64_t samples;          /* samples with their IP in it */
	size_t first, n;           /* its instructions */
	int decoded;               /* 0, or why its code could not be decoded (<0 errno:
				      -ENOENT no binary, -ERANGE not in an executable segment) */
	const uint64_t *event_samples; /* per event, as the instructions' (their sums) */
};

struct hwp_annotation;

/* The function(s) OPTS asks for, from P (run). NULL + errno (hwp_errmsg():
   the function named was not sampled, or no function was). */
HWP_API struct hwp_annotation *hwp_annotate__new(struct hwp_pipeline *p, const struct hwp_annotate_opts *opts);
HWP_API void hwp_annotation__delete(struct hwp_annotation *a);
HWP_API size_t hwp_annotation__functions(const struct hwp_annotation *a, const struct hwp_annotate_func **out);
HWP_API size_t hwp_annotation__insns(const struct hwp_annotation *a, const struct hwp_annotate_insn **out);
/* Samples with an IP over the whole recording (the shares' denominator). */
HWP_API uint64_t hwp_annotation__total_samples(const struct hwp_annotation *a);
/* The events sampled when there are several (a recording of cycles and
   instructions, of loads and stores), in the order first seen: their names
   into *NAMES and their samples over the whole recording into *TOTALS; 0
   for one event (the instructions' event_samples are then NULL). */
HWP_API size_t hwp_annotation__events(const struct hwp_annotation *a, const char *const **names,
				      const uint64_t **totals);

/* The views. A table of one row per instruction, every number in a column
   of its own (for JSON and CSV; with several events a samples_EVENT column
   each, their names held by A: print the table while A lives). NULL on
   ENOMEM. */
struct hwp_symbolizer;
struct hwp_table;
HWP_API struct hwp_table *hwp_report__annotate(struct hwp_symbolizer *sym, const struct hwp_annotation *a);

/* Per source line of the functions shown (inlined code on its own file and
   line): samples and their share of the functions' samples, instructions,
   conditional-branch executions and mispredicts (lower bound), memory
   samples and mean latency; by samples. NULL on ENOMEM. */
HWP_API struct hwp_table *hwp_report__annotate_lines(const struct hwp_annotation *a);

/* perf annotate --stdio's layout: per function a header, then each
   instruction with its samples and share, a '>' where a jump lands, the
   direction of its own jump, and what the analyses know of it; source
   lines above their instructions. */
struct hwp_annotate_text_opts {
	size_t sz;              /* sizeof(struct hwp_annotate_text_opts) */
	bool source;            /* source lines (their text, from the files DWARF names) */
	const char *prefix;     /* the files are found under PREFIX, after */
	unsigned prefix_strip;  /* dropping this many leading directories (perf's options) */
	size_t *missing;        /* set to the source files that could not be read */
	bool color;             /* hot lines red (>= 5%) and green (>= 0.5%), as perf */
	const char *event_note; /* appended to each function's header */
};
HWP_API int hwp_report__print_annotation(struct hwp_symbolizer *sym, const struct hwp_annotation *a,
					 const struct hwp_annotate_text_opts *o, FILE *out);

HWP_END_DECLS

#endif
