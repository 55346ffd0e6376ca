/* The scope tree's lookups against libdw's walk (hwp__dwarf_scope_child, as
   eu-addr2line -i descends): on this test's own binary and on the hwprof
   command built beside it (-O2 -g: libhwprof's static inline functions
   inlined everywhere), every address of every function, the same chain of
   DIEs. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "symbolize/dwarf_scope.h"
#include "symbolize/scope_tree.h"
#include "testlib.h"

#define MAX_CHECKED 2000000 /* addresses: enough to cross thousands of functions */

struct tally {
	size_t addrs, inlined, deepest, mismatches;
};

/* Compares every address of FN's ranges (to the budget). */
static void check_function(struct hwp__scope_trees *c, Dwarf_Die *fn, struct tally *t)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0)
		for (Dwarf_Addr a = start; a < end && t->addrs < MAX_CHECKED; a++) {
			Dwarf_Die got[HWP_SCOPE_TREE_MAX_DEPTH], cur = *fn, child;
			size_t n = hwp__scope_trees_path(c, fn, a, got, HWP_SCOPE_TREE_MAX_DEPTH), k = 0;
			bool same = true;

			while (hwp__dwarf_scope_child(&cur, a, &child)) {
				cur = child;
				if (k >= n || dwarf_dieoffset(&got[k]) != dwarf_dieoffset(&child))
					same = false;
				if (dwarf_tag(&child) == DW_TAG_inlined_subroutine)
					t->inlined++;
				k++;
			}
			if (!same || k != n) {
				if (!t->mismatches)
					fprintf(stderr, "0x%llx: %zu scopes, the walk %zu\n", (unsigned long long)a, n, k);
				t->mismatches++;
			}
			if (n > t->deepest)
				t->deepest = n;
			t->addrs++;
		}
}

static void scan(struct hwp__scope_trees *c, Dwarf_Die *parent, int depth, struct tally *t)
{
	Dwarf_Die d;

	if (depth > 8 || dwarf_child(parent, &d) != 0)
		return;
	do {
		if (dwarf_tag(&d) == DW_TAG_subprogram)
			check_function(c, &d, t);
		else if (dwarf_tag(&d) == DW_TAG_namespace)
			scan(c, &d, depth + 1, t);
	} while (dwarf_siblingof(&d, &d) == 0);
}

/* Every function of the binary at PATH; false when it has no DWARF. */
static bool check_binary(const char *path, struct tally *t)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	struct hwp__scope_trees *c = hwp__scope_trees_new();
	Dwarf_Off off = 0, next;
	size_t hsize;

	CHECK(c != NULL);
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0 && t->addrs < MAX_CHECKED) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			scan(c, &cu, 0, t);
		off = next;
	}
	hwp__scope_trees_free(c);
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	return dw != NULL;
}

static void same_chains_as_libdw_walk(void)
{
	char self[PATH_MAX], cmd[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct tally t = { 0 };
	char *slash;

	if (n <= 0)
		SKIP("/proc/self/exe: unreadable");
	self[n] = 0;
	if (!check_binary(self, &t))
		SKIP("this test binary has no DWARF (built without -g)");
	/* BUILD/tests/unit/test_scope_tree -> BUILD/hwprof */
	if ((slash = strrchr(self, '/')))
		*slash = 0;
	snprintf(cmd, sizeof(cmd), "%s/../../hwprof", self);
	if (access(cmd, R_OK) == 0)
		check_binary(cmd, &t);
	fprintf(stderr, "%zu addresses, %zu inlined frames, deepest %zu scopes\n", t.addrs, t.inlined, t.deepest);
	CHECK_EQ_U64(t.mismatches, 0);
	CHECK(t.addrs > 1000);
	CHECK(t.inlined > 1000); /* the comparison saw inlining, not only flat functions */
	CHECK(t.deepest >= 2);
}

int main(void)
{
	RUN(same_chains_as_libdw_walk);
	TL_EXIT();
}
