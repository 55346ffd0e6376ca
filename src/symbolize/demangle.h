/* SPDX-License-Identifier: MIT */
/*
 * C++ and Rust symbol demangling with the real demangler: __cxa_demangle from
 * libstdc++ (resolved at run time: a weak reference when the program links
 * libstdc++, else dlopen("libstdc++.so.6")). No library: names stay mangled.
 *
 *  - Itanium C++ (_Z...): __cxa_demangle.
 *  - Rust legacy (_ZN...17h<16 hex>E): Itanium-compatible; demangled by
 *    __cxa_demangle, then the ::h<hash> suffix is dropped and Rust's $..$
 *    escapes ($LT$, $GT$, $u20$, .., ...) decoded, as rustc-demangle does.
 *  - Rust v0 (_R...): only through rustc-demangle's C API (rustc_demangle())
 *    when the process or librustc_demangle.so provides it; else kept mangled.
 */
#ifndef HWPROF_SYMBOLIZE_DEMANGLE_H
#define HWPROF_SYMBOLIZE_DEMANGLE_H

#include <stdbool.h>

/* A malloc'd demangled NAME, or NULL when NAME is not mangled or cannot be
   demangled (no library, invalid mangling, out of memory). Thread-safe. */
char *hwp_demangle(const char *name);

/* True when NAME looks mangled (C++/Rust), a cheap test before hwp_demangle. */
bool hwp_demangle__is_mangled(const char *name);

/* Whether __cxa_demangle / a Rust v0 demangler could be found. */
bool hwp_demangle__have_cxx(void);
bool hwp_demangle__have_rust_v0(void);

#endif
