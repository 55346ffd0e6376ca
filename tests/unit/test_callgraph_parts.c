/* The call graph of a parallel pass (analysis/callgraph_part.h): samples
   split among parts in batches, round robin, as the parallel pass hands
   them out (each batch counted before the address spaces change), the
   parts merged; every output (stats, functions, the function tree, the
   callgraph table as text and JSON, a function's callers and callees,
   folded stacks by samples and by period, module numbering) must be the
   sequential call graph's, byte for byte. Recordings: one written here
   (this program's code and its libraries', several load addresses,
   libraries mapped late and moved mid-recording, a forked process,
   kernel and unmapped frames, dropped chains, an event without chains),
   every corpus perf.data, and those $HWPROF_CG_PARTS names
   (tests/e2e/callgraph_parts.sh: generated, stitched, frame-pointer and
   emulated ones). With stitch_lbr the parts may refuse (stitching
   continues each thread's previous sample) but never differ. */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "analysis/callgraph_part.h"
#include "hwprof/callgraph.h"
#include "hwprof/flame.h"
#include "hwprof/perf_writer.h"
#include "hwprof/report.h"
#include "hwprof/session.h"
#include "hwprof/table.h"
#include "session/module_ids.h"
#include "session/session_internal.h"
#include "symbolize/maps_internal.h"
#include "testlib.h"

static char path[256];

/* ---- the outputs ---- */

/* Everything a report shows of CG, as one string (malloc'd; NULL: failed). */
static char *outputs(struct hwp_session *s, struct hwp_call_graph *cg)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(s);
	struct hwp_call_graph_stats st = { .sz = sizeof(st) };
	const struct hwp_cg_function *f;
	const struct hwp_cg_node *t;
	char *buf = NULL, name[512];
	size_t hot = SIZE_MAX;
	FILE *fp = tmpfile(); /* (folded stacks are written to a file descriptor) */
	int bad = 0;

	if (!fp || !sym)
		return NULL;
	bad |= hwp_call_graph__stats(cg, &st) < 0;
	fprintf(fp, "samples %llu period %llu chains %llu lbr %llu stitched %llu discarded %llu frames %zu nodes %zu "
		    "user_stacks %llu\n",
		(unsigned long long)st.samples, (unsigned long long)st.period, (unsigned long long)st.with_callchain,
		(unsigned long long)st.callstack_lbr, (unsigned long long)st.stitched,
		(unsigned long long)st.discarded, st.frames, st.frame_nodes, (unsigned long long)st.user_stacks);
	for (int m = 0; m < 4096; m++) {
		const char *mn = hwp_symbolizer__module_name(sym, m);
		if (!mn)
			break;
		fprintf(fp, "module %d %s\n", m, mn);
	}
	size_t nf = hwp_call_graph__functions(cg, &f);
	bad |= !f;
	for (size_t i = 0; f && i < nf; i++) {
		fprintf(fp, "fn %zu %s %d %llx%s%s %llu %llu %llu %llu\n", i, f[i].name ? f[i].name : "-",
			f[i].module, (unsigned long long)f[i].offset, f[i].kernel ? " kernel" : "",
			f[i].inlined ? " inlined" : "",
			(unsigned long long)f[i].self_samples, (unsigned long long)f[i].self_period,
			(unsigned long long)f[i].children_samples, (unsigned long long)f[i].children_period);
		if (f[i].children_samples && (hot == SIZE_MAX || f[i].children_samples > f[hot].children_samples))
			hot = i;
	}
	size_t nt = hwp_call_graph__tree(cg, &t);
	bad |= !t;
	for (size_t i = 0; t && i < nt; i++)
		fprintf(fp, "node %zu %u %u %llu %llu %llu %llu\n", i, t[i].parent, t[i].function,
			(unsigned long long)t[i].self_samples, (unsigned long long)t[i].self_period,
			(unsigned long long)t[i].total_samples, (unsigned long long)t[i].total_period);
	for (int fmt = HWP_TABLE_TEXT; fmt <= HWP_TABLE_JSON; fmt++) {
		struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = (enum hwp_table_format)fmt };
		struct hwp_table *tab = hwp_report__callgraph(sym, cg, &ro);

		bad |= !tab || hwp_table__print(tab, (enum hwp_table_format)fmt, fp) < 0;
		hwp_table__delete(tab);
		if (hot != SIZE_MAX && hwp_report__cg_function_name(sym, &f[hot], name, sizeof(name)))
			bad |= hwp_report__print_callgraph_function(sym, cg, name, &ro, fp) < 0;
	}
	for (int period = 0; period < 2; period++) {
		struct hwp_flame *fl = hwp_flame__new();

		bad |= !fl || hwp_flame__add_call_graph(fl, HWP_FLAME_AFTER, cg, s, period) < 0 ||
		       hwp_flame__write_folded(fl, fp) < 0;
		hwp_flame__delete(fl);
	}
	long len = ftell(fp);
	if (!bad && len >= 0 && (buf = malloc((size_t)len + 1))) {
		rewind(fp);
		buf[fread(buf, 1, (size_t)len, fp)] = 0;
	}
	fclose(fp);
	if (bad || !buf) {
		fprintf(stderr, "outputs: %s\n", hwp_errmsg());
		free(buf);
		return NULL;
	}
	return buf;
}

/* The sequential call graph's outputs. */
static char *sequential(const char *file, const struct hwp_session_opts *so, const struct hwp_call_graph_opts *co)
{
	struct hwp_session *s = hwp_session__open(file, so);
	struct hwp_call_graph *cg = s ? hwp_call_graph__new(s, co) : NULL;
	char *out = NULL;

	if (cg && hwp_call_graph__read(cg) == 0)
		out = outputs(s, cg);
	else
		fprintf(stderr, "%s: %s\n", file, hwp_errmsg());
	hwp_call_graph__delete(cg);
	hwp_session__delete(s);
	return out;
}

/* ---- a parallel pass on one thread ---- */

#define MAX_PARTS 3
#define MAX_BATCH 64

struct item {
	struct hwp_event ev;
	const struct hwp_thread *th;
};

struct split {
	struct hwp_session *s;
	size_t n, batch; /* parts; samples a batch */
	struct hwp__module_ids *ids[MAX_PARTS];
	struct hwp__resolver res[MAX_PARTS];
	struct hwp_call_graph *parts[MAX_PARTS];
	struct item items[MAX_BATCH];
	size_t nr;         /* in items */
	uint64_t seq;      /* the first item's sample number */
	size_t next_part;  /* the next batch's */
	int err;
};

/* The batch to the next part, round robin, under the generation of the
   address spaces now (none changed since its first sample). */
static int flush(void *ctx)
{
	struct split *sp = ctx;
	size_t k = sp->next_part;
	struct hwp_machine *m = hwp_session__machine(sp->s);

	if (!sp->nr)
		return sp->err;
	sp->next_part = (k + 1) % sp->n;
	sp->res[k].generation = m ? hwp__machine_generation(m) : 0;
	for (size_t i = 0; i < sp->nr && !sp->err; i++)
		if (hwp__call_graph_add_at(sp->parts[k], &sp->items[i].ev, sp->items[i].th, sp->seq + i) < 0)
			sp->err = -1;
	sp->seq += sp->nr;
	sp->nr = 0;
	return sp->err;
}

/* The outputs of FILE's call graph counted in N parts, BATCH samples a
   batch, then merged; *REFUSED set (and NULL returned) where the parts
   refuse the options. With *LATE (not NULL), the samples of a last batch
   not full are added to the merged call graph instead (as a program may
   after a parallel pass), and *LATE says how many. */
static char *in_parts_late(const char *file, const struct hwp_session_opts *so,
			   const struct hwp_call_graph_opts *co, size_t n, size_t batch, bool *refused, size_t *late)
{
	struct split sp = { .n = n, .batch = batch };
	struct hwp_call_graph *dst = NULL;
	char *out = NULL;
	int r;

	*refused = false;
	sp.s = hwp_session__open(file, so);
	if (!sp.s)
		goto out;
	for (size_t k = 0; k < n; k++) {
		if (!(sp.ids[k] = hwp__module_ids_new()))
			goto out;
		hwp__resolver_init(&sp.res[k], sp.s, sp.ids[k]);
		sp.res[k].pinned = true;
		if (!(sp.parts[k] = hwp__call_graph_new_part(sp.s, co, &sp.res[k]))) {
			*refused = errno == EINVAL;
			goto out;
		}
	}
	sp.s->before_change = flush;
	sp.s->before_change_ctx = &sp;
	for (;;) {
		struct item *it = &sp.items[sp.nr];

		if ((r = hwp_session__next(sp.s, &it->ev, &it->th)) <= 0)
			break;
		if (it->ev.type != HWP_RECORD_SAMPLE)
			continue;
		if (it != &sp.items[sp.nr]) /* a flush came between: the slot moved */
			sp.items[sp.nr] = *it;
		sp.nr++;
		/* what does not stay mapped is counted before the next record */
		if ((sp.nr == sp.batch || !sp.items[sp.nr - 1].ev.stable) && flush(&sp) < 0)
			break;
	}
	sp.s->before_change = NULL;
	size_t held = late ? sp.nr : 0;
	sp.nr -= held;
	if (r < 0 || flush(&sp) < 0 || hwp__module_ids_register(sp.ids, n, hwp_session__symbolizer(sp.s)) < 0)
		goto out;
	if (!(dst = hwp_call_graph__new(sp.s, co)) || hwp__call_graph_merge(dst, sp.parts, sp.ids, n) < 0)
		goto out;
	for (size_t i = 0; i < held; i++)
		if (hwp_call_graph__add(dst, &sp.items[i].ev, sp.items[i].th) < 0)
			goto out;
	if (late)
		*late = held;
	out = outputs(sp.s, dst);
out:
	if (!out && !*refused)
		fprintf(stderr, "%s in %zu parts: %s\n", file, n, hwp_errmsg());
	hwp_call_graph__delete(dst);
	for (size_t k = 0; k < n; k++) {
		hwp_call_graph__delete(sp.parts[k]);
		hwp__module_ids_delete(sp.ids[k]);
	}
	hwp_session__delete(sp.s);
	return out;
}

static char *in_parts(const char *file, const struct hwp_session_opts *so, const struct hwp_call_graph_opts *co,
		      size_t n, size_t batch, bool *refused)
{
	return in_parts_late(file, so, co, n, batch, refused, NULL);
}

/* Says where A and B first differ. */
static bool same(const char *what, const char *a, const char *b)
{
	size_t i = 0, line = 1;

	if (!a || !b)
		return false;
	for (; a[i] && a[i] == b[i]; i++)
		line += a[i] == '\n';
	if (!a[i] && !b[i])
		return true;
	size_t from = i, to_a = i, to_b = i;
	while (from && a[from - 1] != '\n')
		from--;
	while (a[to_a] && a[to_a] != '\n')
		to_a++;
	while (b[to_b] && b[to_b] != '\n')
		to_b++;
	fprintf(stderr, "%s: line %zu differs:\n  sequential: %.*s\n  parts:      %.*s\n", what, line,
		(int)(to_a - from > 200 ? 200 : to_a - from), a + from, (int)(to_b - from > 200 ? 200 : to_b - from),
		b + from);
	return false;
}

/* FILE's call graph in parts equals the sequential one, for several splits
   and options; 0 compared, 1 refused (stitching), -1 differs or failed. */
static int check_file(const char *file, const char *symfs)
{
	static const size_t splits[][2] = { { 2, 1 }, { 3, 5 }, { 3, 64 } };
	int rc = 0;

	for (int mode = 0; mode < 3; mode++) {
		struct hwp_session_opts so = { .sz = sizeof(so), .symfs = symfs, .no_inline = mode == 1 };
		struct hwp_call_graph_opts co = { .sz = sizeof(co), .no_inline = mode == 1, .stitch_lbr = mode == 2 };
		char *want = sequential(file, &so, &co), what[600];

		if (!want) { /* then the parts fail as well */
			bool refused;
			char *got = in_parts(file, &so, &co, 2, 3, &refused);

			if (got) {
				fprintf(stderr, "%s: the sequential call graph failed, the parts' did not\n", file);
				rc = -1;
			}
			free(got);
			continue;
		}
		for (size_t i = 0; i < sizeof(splits) / sizeof(splits[0]); i++) {
			bool refused;
			char *got = in_parts(file, &so, &co, splits[i][0], splits[i][1], &refused);

			snprintf(what, sizeof(what), "%s (%s, %zu parts, batches of %zu)", file,
				 mode == 0 ? "inline" : mode == 1 ? "no inline" : "stitch", splits[i][0], splits[i][1]);
			if (refused && mode == 2)
				rc = rc < 0 ? rc : 1;
			else if (!same(what, want, got))
				rc = -1;
			free(got);
		}
		free(want);
	}
	return rc;
}

/* ---- a recording written here ---- */

/* Code to sample: functions of this program and of the C library, as
   (object, file offset). */
struct object {
	char path[256];
	uint64_t size;
};
static struct object objs[12];
static size_t nobjs;

struct code {
	size_t obj;
	uint64_t off;
};

struct find {
	uintptr_t addr;
	struct code *out;
	bool found;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct find *f = ctx;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t v = f->addr - info->dlpi_addr;

		if (ph->p_type != PT_LOAD || v < ph->p_vaddr || v >= ph->p_vaddr + ph->p_memsz)
			continue;
		char p[256];
		if (!info->dlpi_name[0]) {
			ssize_t n = readlink("/proc/self/exe", p, sizeof(p) - 1);
			p[n > 0 ? n : 0] = 0;
		} else {
			snprintf(p, sizeof(p), "%s", info->dlpi_name);
		}
		size_t k;
		for (k = 0; k < nobjs && strcmp(objs[k].path, p); k++)
			;
		struct stat st;
		if (k == nobjs) {
			if (nobjs == sizeof(objs) / sizeof(objs[0]) || stat(p, &st))
				return 1;
			snprintf(objs[k].path, sizeof(objs[k].path), "%s", p);
			objs[k].size = (uint64_t)st.st_size;
			nobjs++;
		}
		f->out->obj = k;
		f->out->off = v - ph->p_vaddr + ph->p_offset;
		f->found = true;
		return 1;
	}
	return 0;
}

static bool code_at(const void *fn, struct code *out)
{
	struct find f = { (uintptr_t)fn, out, false };

	dl_iterate_phdr(find_object, &f);
	return f.found && out->off < objs[out->obj].size;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

#define NPATHS 120
#define MAXDEPTH 24

struct path {
	size_t depth;
	size_t fn[MAXDEPTH];   /* callers first */
	uint64_t ret[MAXDEPTH]; /* each caller's return offset into its function */
	uint64_t ip_at; /* where in the leaf function its IPs are */
	bool kernel, unmapped, bad_marker;
};

static struct code fns[64];
static size_t nfns;
static struct path paths[NPATHS];

/* Where object K is mapped in process PID: several load addresses; process
   200's C library moves when MOVED. */
static uint64_t base_of(size_t k, uint32_t pid, bool moved)
{
	if (pid == 300) /* forked from 100: its maps */
		pid = 100;
	uint64_t b = 0x555500000000ULL + 0x10000000000ULL * k + 0x40000000ULL * (pid / 100);

	return moved && pid == 200 && k > 0 ? b + 0x7000000000ULL : b;
}

static int mmap_obj(struct hwp_writer *w, uint32_t pid, size_t k, bool moved, uint64_t time)
{
	struct hwp_sample id;

	memset(&id, 0, sizeof(id));
	id.pid = id.tid = pid;
	id.time = time;
	return hwp_writer__add_mmap2(w, 0, pid, pid, base_of(k, pid, moved), (objs[k].size + 0xfff) & ~0xfffULL, 0,
				     NULL, 0, PROT_READ | PROT_EXEC, 0, objs[k].path, HWP_MISC_USER, &id);
}

static int write_sample(struct hwp_writer *w, int ev, uint32_t pid, uint32_t tid, uint64_t time, bool moved)
{
	const struct path *p = &paths[rnd(7) ? rnd(NPATHS / 6) : rnd(NPATHS)]; /* a few hot paths */
	uint64_t chain[MAXDEPTH + 8];
	struct hwp_sample s;
	struct hwp_sample_in in = { .s = &s, .callchain = chain };
	size_t n = 0;
	const struct code *leaf = &fns[p->fn[p->depth - 1]];
	/* a few IPs a function: two IPs of one function are one leaf */
	uint64_t ip = base_of(leaf->obj, pid, moved) + leaf->off + 4 * rnd(40) + p->ip_at;

	memset(&s, 0, sizeof(s));
	s.pid = pid;
	s.tid = tid;
	s.time = time;
	s.period = 1000 + rnd(3000);
	s.cpumode = HWP_MISC_USER;
	if (p->kernel) {
		ip = 0xffffffff81000000ULL + 0x40 * rnd(40);
		s.cpumode = HWP_MISC_KERNEL;
		chain[n++] = HWP_CONTEXT_KERNEL;
		chain[n++] = ip;
		chain[n++] = 0xffffffff81200000ULL + 0x100 * rnd(3);
		chain[n++] = HWP_CONTEXT_USER;
	} else {
		chain[n++] = HWP_CONTEXT_USER;
		chain[n++] = ip;
	}
	if (p->bad_marker)
		chain[n++] = HWP_CONTEXT_GUEST;
	if (p->unmapped)
		chain[n++] = 0x10000 + 0x10 * rnd(4);
	for (size_t i = p->depth - 1; i-- > 0;) {
		const struct code *c = &fns[p->fn[i]];
		chain[n++] = base_of(c->obj, pid, moved) + c->off + p->ret[i];
	}
	s.ip = ip;
	s.callchain_nr = n;
	if (ev == 1) { /* the event without chains */
		s.callchain_nr = 0;
		in.callchain = NULL;
	}
	s.id = (uint64_t)ev + 1;
	s.sample_type = HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME |
			(ev == 0 ? HWP_SAMPLE_CALLCHAIN | HWP_SAMPLE_PERIOD : 0);
	return hwp_writer__add_sample(w, ev, &in);
}

static int write_recording(void)
{
	/* code of this program and of the C library: names, and inlined
	   functions where this program's debug information says */
	const void *f[] = { (const void *)hwp_call_graph__add, (const void *)hwp_session__next,
			    (const void *)hwp_writer__add_sample, (const void *)hwp_flame__write_folded,
			    (const void *)hwp_report__callgraph, (const void *)hwp_table__print,
			    (const void *)hwp__call_graph_merge, (const void *)hwp__module_ids_register,
			    (const void *)hwp_call_graph__functions, (const void *)hwp_symbolizer__lookup,
			    (const void *)outputs, (const void *)check_file, (const void *)in_parts,
			    (const void *)flush, (const void *)write_sample, (const void *)hwp_session__open,
			    (const void *)hwp_flame__add_call_graph, (const void *)hwp_call_graph__tree };
	const char *libc[] = { "strlen", "memcpy", "qsort", "fopen", "malloc", "free", "strcmp", "snprintf",
			       "getenv", "fwrite", "cos", "zlibVersion", "ZSTD_versionNumber", "elf_version",
			       "dwarf_begin", "lzma_version_number", "BZ2_bzlibVersion" };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		nfns += code_at(f[i], &fns[nfns]);
	for (size_t i = 0; i < sizeof(libc) / sizeof(libc[0]); i++) {
		void *a = dlsym(RTLD_DEFAULT, libc[i]);
		nfns += a && code_at(a, &fns[nfns]);
	}
	if (nfns < 8)
		return -1;
	for (size_t i = 0; i < NPATHS; i++) {
		struct path *p = &paths[i];
		/* a tree: a path starts as an earlier one's prefix */
		const struct path *up = i ? &paths[rnd(i)] : NULL;
		size_t keep = up ? rnd(up->depth) : 0;

		p->depth = 2 + rnd(MAXDEPTH - 2);
		if (keep >= p->depth)
			keep = p->depth - 1;
		for (size_t d = 0; d < p->depth; d++) {
			p->fn[d] = d < keep ? up->fn[d] : rnd(nfns);
			p->ret[d] = d < keep ? up->ret[d] : 5 + rnd(50) * 7;
		}
		p->ip_at = rnd(4) * 50;
		p->kernel = rnd(10) == 0;
		p->unmapped = rnd(15) == 0;
		p->bad_marker = rnd(40) == 0;
	}

	struct hwp_writer *w = hwp_writer__open(path);
	struct hwp_attr a;
	uint64_t ids[2] = { 1, 2 };
	int err = 0;

	if (!w)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sample_type = HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME |
			HWP_SAMPLE_CALLCHAIN | HWP_SAMPLE_PERIOD;
	a.sample_period = 4000;
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) | (1ULL << HWP_ATTR_COMM) |
		  (1ULL << HWP_ATTR_MMAP2);
	err |= hwp_writer__add_attr(w, &a, &ids[0], 1, "cycles") < 0;
	a.sample_type = HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME;
	a.sample_period = 5000;
	a.flags = 1ULL << HWP_ATTR_SAMPLE_ID_ALL;
	err |= hwp_writer__add_attr(w, &a, &ids[1], 1, "instructions") < 0;
	uint64_t t = 1000;
	/* process 100 maps objects 3 and up later (as dlopen()): the same
	   addresses unmapped, then a module's */
	for (uint32_t pid = 100; pid <= 200; pid += 100)
		for (size_t k = 0; k < nobjs; k++)
			if (pid == 200 || k < 3)
				err |= mmap_obj(w, pid, k, false, t++) < 0;
	bool moved = false, forked = false;
	for (int i = 0; i < 3000 && !err; i++) {
		for (size_t k = 3; i == 600 && k < nobjs; k++)
			err |= mmap_obj(w, 100, k, false, t++) < 0;
		if (i == 1200) { /* process 200's libraries move */
			moved = true;
			for (size_t k = 1; k < nobjs; k++)
				err |= mmap_obj(w, 200, k, true, t++) < 0;
		}
		if (i == 1700) { /* process 300 forks from 100, later exits */
			struct hwp_sample id;
			memset(&id, 0, sizeof(id));
			id.pid = id.tid = 300;
			id.time = t;
			err |= hwp_writer__add_fork_exit(w, 0, HWP_RECORD_FORK, 300, 100, 300, 100, t++, &id) < 0;
			forked = true;
		}
		if (i == 2600 && forked) {
			struct hwp_sample id;
			memset(&id, 0, sizeof(id));
			id.pid = id.tid = 300;
			id.time = t;
			err |= hwp_writer__add_fork_exit(w, 0, HWP_RECORD_EXIT, 300, 100, 300, 100, t++, &id) < 0;
			forked = false;
		}
		uint32_t pid = forked && rnd(3) == 0 ? 300 : rnd(2) ? 100 : 200;
		uint32_t tid = pid + (uint32_t)rnd(3);
		err |= write_sample(w, rnd(12) == 0, pid, tid, t++, moved) < 0;
		if (i % 500 == 499)
			err |= hwp_writer__add_finished_round(w) < 0;
	}
	if (err) {
		hwp_writer__abort(w);
		return -1;
	}
	return hwp_writer__close(w);
}

/* ---- the cases ---- */

static void generated_recording(void)
{
	if (write_recording() < 0)
		SKIP("cannot write the recording (%s)", hwp_errmsg());
	CHECK(check_file(path, NULL) == 0);
	/* the chains were kept and dropped, several functions merged */
	char *out = sequential(path, NULL, NULL);
	CHECK(out && !strstr(out, "chains 0 ") && !strstr(out, "discarded 0 ") && strstr(out, " inlined ") &&
	      strstr(out, " kernel "));
	free(out);
}

/* Samples added to a merged call graph (its index of stacks made again)
   count as they would have in one pass: the last batch's, each batch of 7
   to 10 samples (one of them leaves a batch not full); on
   generated_recording()'s recording. */
static void added_after_merge(void)
{
	size_t late = 0;
	bool refused;

	if (access(path, R_OK) != 0) /* (generated_recording() writes it) */
		SKIP("no recording written");
	char *want = sequential(path, NULL, NULL);
	for (size_t batch = 7; batch <= 10 && !late; batch++) {
		char *got = in_parts_late(path, NULL, NULL, 2, batch, &refused, &late);

		CHECK(same("added after the merge", want, got));
		free(got);
	}
	CHECK(late > 0);
	free(want);
}

/* The function totals and the tree are derived each on demand: one read
   (TREE_FIRST: the tree), then more samples added, and both must be those
   of every sample (neither kept from before the last samples). */
static char *derived_midway(const char *file, bool tree_first)
{
	struct hwp_session *s = hwp_session__open(file, NULL);
	struct hwp_call_graph *cg = s ? hwp_call_graph__new(s, NULL) : NULL;
	struct hwp_event ev;
	const struct hwp_thread *th;
	const struct hwp_cg_function *f = NULL;
	const struct hwp_cg_node *t = NULL;
	char *out = NULL;
	size_t added = 0;
	int r = cg ? 1 : -1;

	while (r > 0 && (r = hwp_session__next(s, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE)
			continue;
		if (hwp_call_graph__add(cg, &ev, th) < 0)
			r = -1;
		else if (++added == 500 && !(tree_first ? hwp_call_graph__tree(cg, &t) > 0 && t
						       : hwp_call_graph__functions(cg, &f) > 0 && f))
			r = -1;
	}
	if (r == 0 && added > 500)
		out = outputs(s, cg);
	else
		fprintf(stderr, "%s: %zu samples: %s\n", file, added, hwp_errmsg());
	hwp_call_graph__delete(cg);
	hwp_session__delete(s);
	return out;
}

static void derived_on_demand(void)
{
	if (access(path, R_OK) != 0) /* (generated_recording() writes it) */
		SKIP("no recording written");
	char *want = sequential(path, NULL, NULL);
	for (int tree_first = 0; tree_first < 2; tree_first++) {
		char *got = derived_midway(path, tree_first);

		CHECK(same(tree_first ? "tree read midway" : "functions read midway", want, got));
		free(got);
	}
	free(want);
}

/* A part takes samples in increasing numbers, merges go into an empty graph. */
static void misuse_refused(void)
{
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp__module_ids *ids = hwp__module_ids_new();
	struct hwp__resolver res;
	struct hwp_call_graph *p = NULL, *dst = NULL;
	struct hwp_event ev;
	const struct hwp_thread *th;
	int samples = 0;

	CHECK(s && ids);
	if (!s || !ids)
		goto out;
	hwp__resolver_init(&res, s, ids);
	CHECK(hwp__call_graph_new_part(s, NULL, NULL) == NULL && errno == EINVAL);
	p = hwp__call_graph_new_part(s, NULL, &res);
	dst = hwp_call_graph__new(s, NULL);
	CHECK(p && dst);
	while (p && dst && samples < 2 && hwp_session__next(s, &ev, &th) > 0)
		if (ev.type == HWP_RECORD_SAMPLE && samples++ == 0) {
			CHECK(hwp__call_graph_add_at(p, &ev, th, 5) == 0);
			CHECK(hwp__call_graph_add_at(p, &ev, th, 5) < 0);
			CHECK(hwp__call_graph_add_at(dst, &ev, th, 6) < 0);
			CHECK(hwp_call_graph__add(dst, &ev, th) == 0);
		}
	CHECK(samples == 2);
	CHECK(hwp__module_ids_register(&ids, 1, hwp_session__symbolizer(s)) == 0);
	CHECK(hwp__call_graph_merge(dst, &p, &ids, 1) < 0); /* dst counted a sample */
out:
	hwp_call_graph__delete(p);
	hwp_call_graph__delete(dst);
	hwp__module_ids_delete(ids);
	hwp_session__delete(s);
	remove(path);
}

static int corpus_failed, corpus_files;

/* Every perf.data of the corpus (by its magic; pipes too). */
static int corpus_file(const char *file, const struct stat *st, int type, struct FTW *ftw)
{
	char magic[8] = { 0 };
	FILE *f;

	(void)st;
	(void)ftw;
	if (type != FTW_F || !(f = fopen(file, "rb")))
		return 0;
	size_t n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n != sizeof(magic) || memcmp(magic, "PERFILE2", 8))
		return 0;
	corpus_files++;
	if (check_file(file, NULL) < 0)
		corpus_failed++;
	return 0;
}

static void corpus_recordings(void)
{
	const char *dir = tl_corpus();

	if (!dir)
		SKIP("no corpus (../shared/corpus or $HWPROF_CORPUS)");
	CHECK(nftw(dir, corpus_file, 16, FTW_PHYS) == 0);
	CHECK(corpus_files > 0);
	CHECK(corpus_failed == 0);
	printf("# %d corpus recordings, %d differ\n", corpus_files, corpus_failed);
}

/* $HWPROF_CG_PARTS: "FILE[=SYMFS] ..." */
static void named_recordings(void)
{
	const char *env = getenv("HWPROF_CG_PARTS");
	char buf[4096], *save = NULL;

	if (!env || !*env)
		SKIP("$HWPROF_CG_PARTS names no recording (tests/e2e/callgraph_parts.sh sets it)");
	snprintf(buf, sizeof(buf), "%s", env);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *symfs = strchr(tok, '=');

		if (symfs)
			*symfs++ = 0;
		int rc = check_file(tok, symfs);
		CHECK(rc >= 0);
		printf("# %s: %s\n", tok, rc < 0 ? "differs" : rc ? "same (stitching refused)" : "same");
	}
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/hwprof-cgparts-%d.data", tmp ? tmp : "/tmp", (int)getpid());
	RUN(generated_recording);
	RUN(added_after_merge);
	RUN(derived_on_demand);
	RUN(misuse_refused);
	RUN(corpus_recordings);
	RUN(named_recordings);
	TL_EXIT();
}
