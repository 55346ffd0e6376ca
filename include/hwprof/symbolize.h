/* SPDX-License-Identifier: MIT */
/*
 * Symbolization: module (ELF identified by build-id, else path) + file offset
 * -> symbol, source line, inline chain. elfutils (libelf + libdw) does the
 * work; each distinct (module, offset) is resolved once and cached.
 *
 * Where files are looked for (first match wins; a file whose build-id is not
 * the recorded one is skipped, as a stale binary gives wrong symbols):
 *   binary:  DIR/.build-id/xx/rest[/elf]  DIR/PATH/<build-id>/elf  SYMFS/PATH
 *   DWARF:   the binary itself, DIR/.build-id/xx/rest.debug, DIR/.build-id/xx/
 *            rest/debug, .gnu_debuglink (next to the binary, in .debug/, in
 *            DIR/<dir of PATH>/), DIR/PATH.debug
 * for each DIR of opts.debug_dirs (default: $PERF_BUILDID_DIR or ~/.debug,
 * then [SYMFS]/usr/lib/debug). Without the binary, a separate debug file
 * stands in for it (its load segments are rebuilt: objcopy clobbers them).
 * The kernel: DIR/[kernel.kallsyms]/<build-id>/kallsyms (perf's cache), else
 * /proc/kallsyms when it is the recorded kernel (or no build-id is known)
 * and its addresses are not hidden by kptr_restrict.
 *
 * Symbols: .symtab (the binary's, else the debug file's), else .dynsym;
 * functions, objects and code labels, plus "name@plt" for PLT entries
 * (perf 6.1's way, or every entry with opts.all_plt). Of aliases at one address the one perf 6.1 keeps wins
 * (sized, non-weak, global, fewer leading '_', longer name, else the first
 * in the table); zero-sized symbols reach the next one; overlapping symbols
 * resolve as perf 6.1's symbol tree resolves them. Source lines and inline chains come from libdw
 * (DWARF 2-5, compressed sections, dwz .gnu_debugaltlink files also looked
 * for in the debug directories); they match addr2line -i, whose source file
 * perf prints: where binutils reads a DWARF 5 line table unlike the
 * standard (a sequence's rows before its first file change are in file 0,
 * not 1), hwprof reads it as binutils does.
 *
 * Names are demangled with libiberty's cplus_demangle, the demangler perf 6.1
 * uses (C++, Rust legacy and v0), in two forms: the name perf prints by
 * default, without parameters ("Shape::area", "operator new",
 * "std::string::_M_append"; no "[clone .cold]"), and the full signature as
 * `perf report -v` and c++filt print it ("Shape::area(int) const"). Of
 * aliases at one address the one perf keeps is chosen by the demangled
 * names, as perf compares them. Not thread-safe: one symbolizer per thread.
 *
 * JIT-compiled code: a module "/tmp/perf-PID.map" (what the address spaces
 * call a process's anonymous executable memory) takes its symbols from that
 * perf map (under symfs first), as perf 6.1 reads it, and is shown as
 * "[JIT] tid PID"; a module "DIR/jitted-PID-N.so" of a jitdump a session
 * read is that dump's code load N (symbol, code bytes at offset 0x80, debug
 * entries as source lines), else the ELF file perf inject wrote.
 *
 * Not handled: .gnu_debugdata (MiniDebugInfo), split DWARF (.dwo/.dwp),
 * relocatable objects (.ko: kernel modules resolve through kallsyms), and
 * the vDSO unless perf's cache holds it.
 */
#ifndef HWPROF_SYMBOLIZE_H
#define HWPROF_SYMBOLIZE_H

#include "hwprof/hwprof.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

HWP_BEGIN_DECLS

struct hwp_symbolizer;

struct hwp_symbolizer_opts {
	size_t sz;            /* sizeof(struct hwp_symbolizer_opts) */
	const char *symfs;    /* --symfs DIR: prefix for every module path */
	const char *debug_dirs; /* ':'-separated build-id caches / debug roots; NULL:
				   $PERF_BUILDID_DIR or ~/.debug, then [symfs]/usr/lib/debug */
	bool no_demangle;     /* keep C++/Rust names mangled */
	bool no_inline;       /* skip inline chains (faster) */
	bool no_kernel;       /* do not read /proc/kallsyms */
	const char *kallsyms; /* kernel symbols file; NULL: /proc/kallsyms */
	/* Name every PLT entry (.plt, .plt.sec, .plt.got) "func@plt" by the GOT
	   slot it jumps through, as objdump does. Default (false) is perf 6.1:
	   only .plt entries, by .rela.plt order ("@plt" for libc's IRELATIVE
	   slots); where gcc's zero-sized _init, stretched over the PLT, overlaps
	   them, each address resolves as perf's symbol tree resolves it
	   ("puts@plt", "_init+0x3b", or nothing in .plt.sec/.plt.got). */
	bool all_plt;
};

/* NULL + errno (EINVAL: OPTS' size; ENOMEM) and hwp_errmsg() on failure. */
HWP_API struct hwp_symbolizer *hwp_symbolizer__new(const struct hwp_symbolizer_opts *opts);
HWP_API void hwp_symbolizer__delete(struct hwp_symbolizer *s);

/*
 * Registers a module as mapped in some process: PATH as recorded (MMAP2
 * filename), its build-id when known. Modules with the same build-id (or,
 * without one, the same path) are one module whatever their load address.
 * Returns the module id (>= 0) or <0.
 */
HWP_API int hwp_symbolizer__module(struct hwp_symbolizer *s, const char *path, const uint8_t *build_id,
			   uint8_t build_id_size);
/* "[kernel.kallsyms]": addresses are absolute kernel addresses. */
HWP_API int hwp_symbolizer__kernel_module(struct hwp_symbolizer *s);
/*
 * The recorded kernel's build-id (perf.data's BUILD_ID feature): selects
 * perf's cached kallsyms copy, and /proc/kallsyms is used only when the
 * running kernel has this build-id. Call before the first kernel lookup.
 */
HWP_API int hwp_symbolizer__set_kernel_build_id(struct hwp_symbolizer *s, const uint8_t *build_id,
					uint8_t build_id_size);

/* NULL (hwp_errmsg() says so) when MODULE is not a registered id. */
HWP_API const char *hwp_symbolizer__module_name(const struct hwp_symbolizer *s, int module);
/* Short name (basename, or "[kernel.kallsyms]") as perf's dso column shows it. */
HWP_API const char *hwp_symbolizer__module_short_name(const struct hwp_symbolizer *s, int module);
/* Build-id in hex: the recorded one, else that of the file found for the
   module (after a lookup); NULL when neither is known or MODULE is bad. */
HWP_API const char *hwp_symbolizer__module_build_id(const struct hwp_symbolizer *s, int module);

/* The binary found for MODULE (loaded on demand), NULL when missing (the
   kernel has none; hwp_errmsg() says why): what an instruction decoder reads. */
HWP_API const char *hwp_symbolizer__module_file(struct hwp_symbolizer *s, int module);
/* File offset -> ELF virtual address (PT_LOAD), as lookup computes it. 0,
   -ERANGE (outside every segment: *VADDR = OFFSET) or as lookup fails. */
HWP_API int hwp_symbolizer__module_vaddr(struct hwp_symbolizer *s, int module, uint64_t offset,
				 uint64_t *vaddr);

/*
 * One inlined call: FUNCTION was inlined into its caller at FILE:LINE (the
 * call site). For an address in sq() inlined into compute() inlined into
 * main(): info.symbol = "main", info.file:line = the line in sq(),
 * inlines[0] = { "sq", call site in compute() }, inlines[1] = { "compute",
 * call site in main() } -- eu-addr2line -i / perf's inline output, as data.
 */
struct hwp_inline_frame {
	const char *function; /* demangled as perf prints it (no parameters) */
	const char *file;     /* NULL when unknown */
	unsigned line;
	const char *function_full; /* demangled with parameters */
};

struct hwp_symbol_info {
	const char *symbol;   /* demangled as perf 6.1 prints it by default (no
				 parameter list); NULL when unknown */
	uint64_t sym_offset;  /* address - symbol start */
	uint64_t vaddr;       /* ELF virtual address (link-time address) */
	const char *file;     /* source file of the innermost frame; NULL if no debug info */
	unsigned line;
	size_t n_inline;      /* inline frames, innermost first (function, call site) */
	const struct hwp_inline_frame *inlines;
	uint64_t sym_start;   /* symbol start (vaddr; kernel: address); sym_size its size */
	uint64_t sym_size;
	const char *symbol_raw; /* the name as in the symbol table (mangled) */
	const char *symbol_full; /* demangled with parameters, as perf -v and
				    c++filt print it: "Shape::area(int) const" */
};

/*
 * Resolves MODULE + OFFSET (file offset: address - map start + map pgoff;
 * for the kernel module the absolute address). Strings stay valid while S
 * lives. Returns 0 (OUT->symbol may still be NULL when nothing covers the
 * address; OUT->file is NULL without debug info), or <0 when the module's
 * symbols cannot be had (see hwp_symbolizer__missing(); hwp_errmsg() says
 * which module and why):
 *   -ENOENT   no file for the module        -ESTALE  only files with another build-id
 *   -EACCES   kernel addresses hidden/unreadable   -ENOTSUP  built without elfutils,
 *   -EINVAL   bad module id                          or opts.no_kernel
 */
HWP_API int hwp_symbolizer__lookup(struct hwp_symbolizer *s, int module, uint64_t offset,
			   struct hwp_symbol_info *out);

/*
 * Modules whose ELF or debug info could not be found (among those looked
 * up), for one warning line: fills up to MAX names, returns how many there
 * are; *NO_DEBUG_INFO_ONLY (may be NULL) says every one has its ELF and
 * lacks only DWARF.
 */
HWP_API size_t hwp_symbolizer__missing(const struct hwp_symbolizer *s, const char **names, size_t max,
			       bool *no_debug_info_only);

enum hwp_missing_kind {
	HWP_MISSING_BINARY = 1, /* no file for the module */
	HWP_MISSING_STALE,      /* only files with another build-id */
	HWP_MISSING_DEBUG_INFO, /* symbols yes, source lines no */
	HWP_MISSING_KERNEL,     /* no kernel symbols (reason says why) */
	HWP_MISSING_UNSUPPORTED /* built without elfutils */
};

struct hwp_missing_module {
	int module;
	const char *name;     /* path as recorded */
	const char *build_id; /* hex; NULL when none was recorded */
	enum hwp_missing_kind kind;
	const char *reason;   /* "no file with build-id 1a2b...", "/bin/x has build-id ..." */
};

/* The same list with details; returns the count, fills up to MAX. */
HWP_API size_t hwp_symbolizer__missing_modules(const struct hwp_symbolizer *s,
				       struct hwp_missing_module *out, size_t max);
/*
 * One line for the CLI's warning (no "hwprof: warning: " prefix, no
 * newline): what is missing and how to supply it. Returns the length
 * snprintf would (0: nothing missing, BUF = "").
 */
HWP_API size_t hwp_symbolizer__missing_warning(const struct hwp_symbolizer *s, char *buf, size_t size);
/* The same without the modules that lack only debug info: for output that
   shows no source line, where their missing lines change nothing. */
HWP_API size_t hwp_symbolizer__missing_symbols_warning(const struct hwp_symbolizer *s, char *buf, size_t size);

struct hwp_symbolizer_stats {
	size_t sz; /* sizeof(struct hwp_symbolizer_stats): set by the caller */
	size_t modules;        /* registered */
	size_t modules_loaded; /* whose ELF (or kallsyms) was read */
	size_t lookups;        /* hwp_symbolizer__lookup() calls */
	size_t cache_hits;
	size_t resolved;       /* distinct (module, offset) resolved */
};
HWP_API int hwp_symbolizer__stats(const struct hwp_symbolizer *s, struct hwp_symbolizer_stats *st);

HWP_END_DECLS

#endif
