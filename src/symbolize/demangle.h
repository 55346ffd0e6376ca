/* SPDX-License-Identifier: MIT */
/*
 * C++ and Rust demangling with the library perf 6.1 uses:
 * libiberty's cplus_demangle() (Debian's perf is built without libbfd and
 * links libiberty.a; hwprof links the same archive, libiberty-dev). Using
 * the same code, not a look-alike, is what makes the names match perf's to
 * the character (abbreviations such as std::string, lambdas, clone suffixes,
 * thunks, Rust legacy hashes and v0 names).
 *
 * Two forms, as perf prints them:
 *  - HWP_DEMANGLE_NAME: perf's default (DMGL_NO_OPTS): no parameter list, no
 *    return type, no cv-qualifiers of the method, no "[clone .cold]":
 *    "outer::Shape::area", "operator new", "main::{lambda(long, long)#1}::operator()".
 *    A version suffix after the name ("@@GLIBCXX_3.4") is dropped, as the
 *    demangler ignores what follows the name when it does not read parameters.
 *  - HWP_DEMANGLE_FULL: `perf report -v` (DMGL_PARAMS | DMGL_ANSI), the
 *    signature as c++filt prints it: "outer::Shape::area(int) const",
 *    "f() [clone .cold]". A suffix from '@' on is kept after the demangled
 *    name (perf -v would leave such a name mangled).
 * Either way "NAME@plt" (hwprof's name of a PLT entry) demangles NAME and keeps
 * "@plt", as perf demangles a PLT entry's target before appending "@plt".
 * Built without libiberty (mk/config.mk says so), every name stays mangled.
 */
#ifndef HWPROF_SYMBOLIZE_DEMANGLE_H
#define HWPROF_SYMBOLIZE_DEMANGLE_H

#include <stdbool.h>

enum hwp_demangle_form {
	HWP_DEMANGLE_NAME, /* perf 6.1's default: the name without parameters */
	HWP_DEMANGLE_FULL, /* with parameters, as perf -v and c++filt */
};

/* A malloc'd demangled NAME, or NULL when NAME is not mangled or cannot be
   demangled (invalid mangling, out of memory). Thread-safe. */
char *hwp__demangle(const char *name, enum hwp_demangle_form form);

/* False when NAME cannot be a mangled name (a cheap test before
   hwp__demangle): libiberty's demanglers all need a leading '_'
   (_Z Itanium C++ and Rust legacy, _R Rust v0, _GLOBAL_ constructors). */
bool hwp__demangle_is_mangled(const char *name);

#endif
