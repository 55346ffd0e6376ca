/* SPDX-License-Identifier: MIT */
/* The session: reader -> perf's order -> address spaces -> symbolizer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_data_internal.h"
#include "session/module_ids.h"
#include "session/session_internal.h"
#include "symbolize/jit_sources.h"
#include "symbolize/maps_internal.h"
#include "symbolize/symbolizer_internal.h"
#include "util/error.h"
#include "util/opts.h"

/* Kernel addresses on x86-64 and arm64 start here: perf always has a kernel
   map, so an address up there with no map found is still the kernel's. */
#define KERNEL_START 0xffff800000000000ULL

/* Input I's order and address spaces; its reader is set. */
static int input_init(struct hwp_session *s, struct hwp__session_input *in)
{
	struct hwp_reader *r = in->reader;

	hwp__log(HWP_LOG_INFO, "%s: %s%s, %zu event%s", hwp_reader__path(r),
		 hwp_reader__is_text(r) ? "perf script text" : "perf.data",
		 hwp_reader__is_text(r) ? "" : hwp_reader__is_pipe(r) ? " (pipe mode)" : " (file mode)",
		 hwp_reader__nr_evsels(r), hwp_reader__nr_evsels(r) == 1 ? "" : "s");
	in->ordered = hwp_ordered__new(r);
	if (!in->ordered)
		return -1; /* message set */
	if (!s->o.no_maps && !(in->machine = hwp_machine__new()))
		return hwp__set_error(ENOMEM, "%s: out of memory making the address spaces", hwp_reader__path(r));
	return 0;
}

/* Makes input CUR the one read. */
static void enter_input(struct hwp_session *s, size_t cur)
{
	s->cur = cur;
	s->reader = s->inputs[cur].reader;
	s->ordered = s->inputs[cur].ordered;
	s->machine = s->inputs[cur].machine;
	memset(s->threads_seen, 0, sizeof(s->threads_seen));
	/* another input's maps: no cached map holds */
	hwp__resolver_invalidate(&s->res);
}

/* A session of N inputs whose readers are R[0..N); owns them from now on,
   also when this fails. */
static struct hwp_session *session_new(struct hwp_reader **r, size_t n, const struct hwp_session_opts *opts)
{
	struct hwp_session *s = calloc(1, sizeof(*s));
	int err = ENOMEM;

	if (!s || !(s->inputs = calloc(n, sizeof(*s->inputs)))) {
		hwp__set_error(ENOMEM, "%s: out of memory", hwp_reader__path(r[0]));
		free(s);
		s = NULL;
		goto fail;
	}
	s->nr_inputs = n;
	for (size_t i = 0; i < n; i++) {
		s->inputs[i].reader = r[i];
		r[i] = NULL;
	}
	if (HWP_OPTS_LOAD(opts, &s->o, struct hwp_session_opts)) {
		err = EINVAL;
		goto fail;
	}
	s->kernel_module = -1;
	hwp__resolver_init(&s->res, s, NULL);
	if (!(s->jit = hwp__jit_sources_new(s->o.symfs)))
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (input_init(s, &s->inputs[i]) < 0) {
			err = errno ? errno : ENOMEM;
			goto fail;
		}
	enter_input(s, 0);
	return s;
fail:
	for (size_t i = 0; i < n; i++)
		hwp_reader__delete(r[i]);
	hwp_session__delete(s);
	errno = err;
	return NULL;
}

struct hwp_session *hwp_session__from_reader(struct hwp_reader *r, const struct hwp_session_opts *opts)
{
	if (!r) {
		hwp__set_error(EINVAL, "session: no reader given");
		return NULL;
	}
	return session_new(&r, 1, opts);
}

struct hwp_session *hwp_session__open_inputs(const char *const *paths, size_t n,
					     const struct hwp_session_opts *opts)
{
	struct hwp_reader_opts ro = { .sz = sizeof(ro) };
	struct hwp_session_opts o;
	struct hwp_reader **r;
	size_t stdin_uses = 0;

	/* Bad options are said before the input is touched. */
	if (HWP_OPTS_LOAD(opts, &o, struct hwp_session_opts))
		return NULL;
	if (!paths || !n) {
		hwp__set_error(EINVAL, "session: no input given");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		stdin_uses += !strcmp(paths[i], "-");
	if (stdin_uses > 1) {
		hwp__set_error(EINVAL, "-: standard input can be read only once, %zu inputs name it", stdin_uses);
		return NULL;
	}
	r = calloc(n, sizeof(*r));
	if (!r) {
		hwp__set_error(ENOMEM, "%s: out of memory", paths[0]);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (!(r[i] = hwp_reader__open(paths[i], &ro))) {
			int err = errno;

			while (i--)
				hwp_reader__delete(r[i]);
			free(r);
			errno = err;
			return NULL;
		}
	struct hwp_session *s = session_new(r, n, &o);
	free(r);
	return s;
}

struct hwp_session *hwp_session__open(const char *path, const struct hwp_session_opts *opts)
{
	return hwp_session__open_inputs(&path, 1, opts);
}

void hwp_session__delete(struct hwp_session *s)
{
	if (!s)
		return;
	hwp_symbolizer__delete(s->sym);
	hwp__session_assumed_free(s);
	for (size_t i = 0; s->inputs && i < s->nr_inputs; i++) {
		hwp__session_jit_free(&s->inputs[i]);
		hwp_machine__delete(s->inputs[i].machine);
		hwp_ordered__delete(s->inputs[i].ordered);
		hwp_reader__delete(s->inputs[i].reader);
	}
	free(s->inputs);
	hwp__jit_sources_put(s->jit);
	free(s);
}

void hwp__session_set_raw_samples(struct hwp_session *s, bool raw)
{
	for (size_t i = 0; i < s->nr_inputs; i++)
		hwp__ordered_set_raw(s->inputs[i].ordered, raw);
}

void hwp__session_stopped_early(struct hwp_session *s)
{
	s->inputs[s->cur].st.done = false;
}

size_t hwp_session__nr_inputs(const struct hwp_session *s)
{
	return s->nr_inputs;
}

size_t hwp_session__input(const struct hwp_session *s)
{
	return s->cur;
}

const char *hwp_session__input_path(const struct hwp_session *s, size_t i)
{
	return i < s->nr_inputs ? hwp_reader__path(s->inputs[i].reader) : NULL;
}

struct hwp_reader *hwp_session__input_reader(struct hwp_session *s, size_t i)
{
	return i < s->nr_inputs ? s->inputs[i].reader : NULL;
}

const struct hwp_session_input_stats *hwp_session__input_stats(const struct hwp_session *s, size_t i)
{
	return i < s->nr_inputs ? &s->inputs[i].st : NULL;
}

const char *hwp_session__path(const struct hwp_session *s)
{
	return hwp_reader__path(s->reader);
}

struct hwp_reader *hwp_session__reader(struct hwp_session *s)
{
	return s->reader;
}

const struct hwp_header_info *hwp_session__header(const struct hwp_session *s)
{
	return hwp_reader__header(s->reader);
}

bool hwp_session__is_text(const struct hwp_session *s)
{
	return hwp_reader__is_text(s->reader);
}

uint64_t hwp_session__sample_types(const struct hwp_session *s)
{
	uint64_t t = 0;

	/* Pipe mode announces every attr before the first sample, so this is
	   final once a sample was seen. */
	for (size_t n = 0; n < s->nr_inputs; n++)
		for (size_t i = 0; i < hwp_reader__nr_evsels(s->inputs[n].reader); i++)
			t |= hwp_reader__evsel(s->inputs[n].reader, i)->attr.sample_type;
	return t;
}

struct hwp_machine *hwp_session__machine(struct hwp_session *s)
{
	return s->machine;
}

/* Build-id of FILENAME from the header's BUILD_ID list, when the MMAP had none. */
static const struct hwp_build_id *header_build_id(const struct hwp_header_info *h, const char *f)
{
	for (size_t i = 0; h && i < h->nr_build_ids; i++)
		if (strcmp(h->build_ids[i].filename, f) == 0)
			return &h->build_ids[i];
	return NULL;
}

struct hwp_symbolizer *hwp__session_new_symbolizer(struct hwp_session *s)
{
	struct hwp_symbolizer_opts so = {
		.sz = sizeof(so),
		.symfs = s->o.symfs,
		.debug_dirs = s->o.debug_dirs,
		.no_demangle = s->o.no_demangle,
		.no_inline = s->o.no_inline,
		.no_kernel = s->o.no_kernel,
		.kallsyms = s->o.kallsyms,
		.all_plt = s->o.all_plt,
	};
	struct hwp_symbolizer *sym = hwp_symbolizer__new(&so);
	if (!sym)
		return NULL;
	hwp__symbolizer_set_jit_sources(sym, s->jit);
	/* The recording's kernel, not this machine's, names kernel addresses. */
	const struct hwp_build_id *kb = header_build_id(hwp_reader__header(s->inputs[0].reader), "[kernel.kallsyms]");
	if (kb)
		hwp_symbolizer__set_kernel_build_id(sym, kb->id, kb->size);
	int km = hwp_symbolizer__kernel_module(sym);
	if (km < 0) {
		hwp_symbolizer__delete(sym);
		hwp__set_error(-km, "%s: cannot register the kernel module: %s", hwp_session__path(s),
			       hwp_strerror(km));
		return NULL;
	}
	return sym;
}

struct hwp_symbolizer *hwp_session__symbolizer(struct hwp_session *s)
{
	if (s->sym)
		return s->sym;
	struct hwp_symbolizer *sym = hwp__session_new_symbolizer(s);
	if (!sym)
		return NULL;
	s->kernel_module = hwp_symbolizer__kernel_module(sym);
	s->sym = sym;
	return sym;
}

/* IN (the one being read) is read to its end; said per input when there
   are several. */
static void input_done(struct hwp_session *s, struct hwp__session_input *in)
{
	in->st.done = true;
	if (s->nr_inputs > 1)
		hwp__log(HWP_LOG_INFO, "%s: %llu records (%llu samples) in perf's order", hwp_session__path(s),
			 (unsigned long long)in->st.records, (unsigned long long)in->st.samples);
}

/* The sample's pid and tid as the machine takes them. */
static void sample_ids(const struct hwp_event *ev, int32_t *pid, int32_t *tid)
{
	bool has = ev->sample.sample_type & HWP_SAMPLE_TID;

	*pid = has ? (int32_t)ev->sample.pid : -1;
	*tid = has ? (int32_t)ev->sample.tid : -1;
}

/* The thread of sample EV when a sample of the same pid and tid found it
   since the address spaces last changed (threads go only with a change),
   else NULL. That thread has that pid: the sample changes nothing, and
   finding it again would give it. */
static const struct hwp_thread *known_thread(struct hwp_session *s, const struct hwp_event *ev)
{
	int32_t pid, tid;

	sample_ids(ev, &pid, &tid);
	const struct hwp_thread *t = s->threads_seen[(uint32_t)tid % HWP__SESSION_THREADS_SEEN];
	if (t && s->threads_generation == hwp__machine_generation(s->machine) && hwp_thread__tid(t) == tid &&
	    hwp_thread__pid(t) == pid)
		return t;
	return NULL;
}

/* hwp_machine__sample_thread(), remembered. */
static const struct hwp_thread *sample_thread(struct hwp_session *s, const struct hwp_event *ev)
{
	const struct hwp_thread *t = known_thread(s, ev);
	uint64_t gen;

	if (t)
		return t;
	if (!(t = hwp_machine__sample_thread(s->machine, ev)))
		return NULL;
	if ((gen = hwp__machine_generation(s->machine)) != s->threads_generation) {
		memset(s->threads_seen, 0, sizeof(s->threads_seen));
		s->threads_generation = gen;
	}
	s->threads_seen[(uint32_t)hwp_thread__tid(t) % HWP__SESSION_THREADS_SEEN] = t;
	return t;
}

int hwp_session__next(struct hwp_session *s, struct hwp_event *ev, const struct hwp_thread **thread)
{
	const struct hwp_thread *th = NULL;
	struct hwp__session_input *in = &s->inputs[s->cur];
	int n;

	/* each input to its end, then the next one */
	while ((n = hwp_ordered__next(s->ordered, ev)) == 0 && s->cur + 1 < s->nr_inputs) {
		input_done(s, in);
		enter_input(s, s->cur + 1);
		in = &s->inputs[s->cur];
	}
	if (n <= 0) {
		if (n == 0 && !s->said_end) {
			s->said_end = true;
			input_done(s, in);
			hwp__log(HWP_LOG_INFO, "%s%s: %llu records (%llu samples) in perf's order", hwp_session__path(s),
				 s->nr_inputs > 1 ? " and the inputs before it" : "",
				 (unsigned long long)s->records, (unsigned long long)s->samples);
		}
		return n;
	}
	s->records++;
	s->samples += ev->type == HWP_RECORD_SAMPLE;
	in->st.records++;
	in->st.samples += ev->type == HWP_RECORD_SAMPLE;
	if (s->machine) {
		int err;
		if (s->before_change &&
		    (ev->type != HWP_RECORD_SAMPLE ? hwp__machine_event_changes(ev)
						   : ev->evsel && !known_thread(s, ev) &&
							     hwp__machine_sample_changes(s->machine, ev)) &&
		    (err = s->before_change(s->before_change_ctx)) < 0)
			return err;
		/* JIT code loaded by now is mapped first (jitdumps) */
		uint64_t t = hwp_event__time(ev);
		if (t != UINT64_MAX && (err = hwp__session_jit_apply(s, in, t)) < 0)
			return err;
		if (ev->type != HWP_RECORD_SAMPLE) {
			err = hwp__session_jit_mmap(s, in, ev);
			if (err < 0)
				return err;
			err = err ? 0 : hwp_machine__process_event(s->machine, ev);
		} else if (ev->evsel) {
			th = sample_thread(s, ev);
			err = th ? 0 : -ENOMEM;
		} else {
			err = 0; /* a sample no event claims: nothing to attribute */
		}
		/* -EINVAL: a record too short for its type; perf skips it too. */
		if (err == -ENOMEM)
			return hwp__set_error(ENOMEM, "%s: out of memory tracking process maps at record %llu",
					      hwp_session__path(s), (unsigned long long)ev->index);
	}
	if (thread)
		*thread = th;
	return 1;
}

int hwp_session__process(struct hwp_session *s, const struct hwp_session_handler *h)
{
	struct hwp_session_handler hh;
	struct hwp_event ev;
	const struct hwp_thread *th;
	int n, err = 0;

	if (HWP_OPTS_LOAD(h, &hh, struct hwp_session_handler))
		return -EINVAL;
	while ((n = hwp_session__next(s, &ev, &th)) > 0) {
		if (ev.type == HWP_RECORD_SAMPLE) {
			if (ev.evsel && hh.sample)
				err = hh.sample(hh.ctx, &ev, th);
		} else if (hh.other) {
			err = hh.other(hh.ctx, &ev);
		}
		if (err < 0)
			return err;
	}
	return n;
}

void hwp__resolver_init(struct hwp__resolver *r, struct hwp_session *s, struct hwp__module_ids *ids)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->ids = ids;
}

void hwp__resolver_invalidate(struct hwp__resolver *r)
{
	for (size_t i = 0; i < HWP_SESSION_RESOLVE_SLOTS; i++)
		r->cache[i].valid = false;
	memset(r->map_module, 0, sizeof(r->map_module));
	r->cache_filled = false;
}

struct hwp__resolver *hwp__session_resolver(struct hwp_session *s)
{
	return &s->res;
}

/* The module of map M: registered in the symbolizer, or numbered apart. */
static int32_t lookup_module(struct hwp__resolver *r, const struct hwp_map *m)
{
	struct hwp_session *s = r->s;
	const uint8_t *bid = m->build_id;
	uint8_t n = m->build_id_size;

	/* the kernel image (and what perf maps with it), or one of its modules */
	bool kmod = m->kernel && !m->identity;
	if (m->kernel && !kmod)
		return s->kernel_module;
	if (!n) {
		const struct hwp_build_id *b = header_build_id(hwp_reader__header(s->reader), m->filename);

		bid = b ? b->id : NULL;
		n = b ? b->size : 0;
	}
	if (r->ids)
		return hwp__module_ids_get(r->ids, s->sym, m->filename, bid, n, kmod ? m->start : 0, kmod, r->pos++);
	return kmod ? hwp__symbolizer_kernel_module_file(s->sym, m->filename, bid, n, m->start)
		    : hwp_symbolizer__module(s->sym, m->filename, bid, n);
}

/* The same, remembered per map while the maps stay as they are (the
   generation the resolver entered the thread under). */
static int32_t module_of(struct hwp__resolver *r, const struct hwp_map *m)
{
	const size_t slots = sizeof(r->map_module) / sizeof(r->map_module[0]);

	if (r->cache_generation != r->module_generation) { /* maps moved: a remembered map may be gone */
		memset(r->map_module, 0, sizeof(r->map_module));
		r->module_generation = r->cache_generation;
	}
	for (size_t i = 0; i < slots; i++)
		if (r->map_module[i].map == m)
			return r->map_module[i].module;
	int32_t mod = lookup_module(r, m);
	if (mod >= 0) {
		r->map_module[r->map_module_next].map = m;
		r->map_module[r->map_module_next].module = mod;
		r->map_module_next = (r->map_module_next + 1) % slots;
	}
	return mod;
}

/* No module: the location is the raw address (a user one unless KERNEL). */
static void raw_loc(uint64_t addr, bool kernel, int32_t kernel_module, struct hwp_code_loc *loc)
{
	loc->module = kernel ? kernel_module : -1;
	loc->cpumode = kernel ? HWP_MISC_KERNEL : HWP_MISC_USER;
	loc->offset = addr;
}

void hwp__resolver_enter(struct hwp__resolver *r, const struct hwp_thread *th)
{
	uint64_t gen = r->pinned ? r->generation : r->s->machine ? hwp__machine_generation(r->s->machine) : 0;
	const void *maps = hwp__thread_maps_key(th);

	r->thread = th;
	if (!r->cache_filled || gen != r->cache_generation || maps != r->cache_maps) {
		/* maps moved or another address space: no cached map holds any more */
		for (size_t i = 0; i < HWP_SESSION_RESOLVE_SLOTS; i++)
			r->cache[i].valid = false;
		r->cache_generation = gen;
		r->cache_maps = maps;
		r->cache_filled = true;
	}
}

/* The assumed map holding ADDR and [*START, *END) narrowed to where no
   assumed map before it (which a lookup tries first) is; NULL when none. */
static const struct hwp_map *assumed_map(const struct hwp_session *s, uint64_t addr, uint64_t *start,
					 uint64_t *end)
{
	const struct hwp_map *m = hwp__session_assumed_map(s, addr);

	if (!m)
		return NULL;
	*start = m->start;
	*end = m->end;
	for (const struct hwp_map *e = s->assumed; e < m; e++) {
		if (e->end <= addr && e->end > *start)
			*start = e->end;
		else if (e->start > addr && e->start < *end)
			*end = e->start;
	}
	return m;
}

int hwp__resolver_miss(struct hwp__resolver *r, unsigned slot, uint64_t addr, struct hwp_code_loc *loc)
{
	struct hwp_session *s = r->s;
	struct hwp__resolve_cache *mc = &r->cache[slot];
	const struct hwp_thread *th = r->thread;
	const struct hwp_map *m = NULL;
	uint16_t space = HWP_MISC_USER;
	uint64_t start = 0, end = 0;

	loc->addr = addr;
	if (!s->sym && !hwp_session__symbolizer(s)) {
		raw_loc(addr, false, -1, loc);
		return -errno;
	}
	if (th) {
		m = hwp_thread__find_map(th, HWP_MISC_USER, addr);
		if (!m && (m = hwp_thread__find_map(th, HWP_MISC_KERNEL, addr)))
			space = HWP_MISC_KERNEL;
	}
	if (m) {
		start = m->start;
		end = m->end;
	} else if (addr < KERNEL_START) {
		m = assumed_map(s, addr, &start, &end);
		space = 0;
	}
	if (!m) {
		mc->valid = false;
		raw_loc(addr, addr >= KERNEL_START, s->kernel_module, loc);
		return 0;
	}
	int32_t mod = module_of(r, m);
	*mc = (struct hwp__resolve_cache){ .valid = mod >= 0, .identity = m->identity || m->kernel,
					  .kernel = m->kernel, .start = start, .end = end,
					  .pgoff = m->pgoff + (start - m->start), .module = mod >= 0 ? mod : -1 };
	if (!mc->valid) {
		raw_loc(addr, false, -1, loc);
		return 0;
	}
	/* A kernel map found after the user maps failed may extend over user
	   space (old recordings map the kernel from a low start to the top):
	   a cached window must not answer for addresses a user map holds, so
	   it keeps to the kernel half, and a user address is not cached. */
	if (m->kernel) {
		if (mc->start < KERNEL_START)
			mc->start = KERNEL_START;
		if (addr < KERNEL_START)
			mc->valid = false;
	}
	/* Nor for addresses a map tried first holds: the window keeps to the
	   gap ADDR is in (its offsets still count from the map's start). */
	if (th && space != HWP_MISC_USER) {
		uint64_t lo = mc->start, hi = mc->end;

		hwp__thread_clip_to_gap(th, HWP_MISC_USER, addr, &lo, &hi);
		if (space != HWP_MISC_KERNEL)
			hwp__thread_clip_to_gap(th, HWP_MISC_KERNEL, addr, &lo, &hi);
		mc->pgoff += lo - mc->start;
		mc->start = lo;
		mc->end = hi;
	}
	hwp__resolve_cache_fill(mc, addr, loc);
	return 0;
}

int hwp_session__resolve(struct hwp_session *s, const struct hwp_thread *th, uint64_t addr,
			 unsigned slot, struct hwp_code_loc *loc)
{
	hwp__session_enter_thread(s, th);
	return hwp__session_resolve(s, slot % HWP_SESSION_RESOLVE_SLOTS, addr, loc);
}

bool hwp__session_exec_pgoff(const struct hwp_session *s, const char *filename, uint64_t *pgoff)
{
	bool found = false;

	for (size_t i = 0; i < s->nr_inputs; i++) {
		uint64_t v;

		if (s->inputs[i].machine && hwp__machine_exec_pgoff(s->inputs[i].machine, filename, &v) &&
		    (!found || v < *pgoff)) {
			*pgoff = v;
			found = true;
		}
	}
	return found;
}

const struct hwp_file_vaddr *hwp__session_file_vaddr(const struct hwp_session *s, const char *filename)
{
	for (size_t i = 0; i < s->nr_inputs; i++) {
		const struct hwp_header_info *h = s->inputs[i].reader ? hwp_reader__header(s->inputs[i].reader) : NULL;

		for (size_t k = 0; h && k < h->nr_file_vaddrs; k++)
			if (!strcmp(h->file_vaddrs[k].path, filename))
				return &h->file_vaddrs[k];
	}
	return NULL;
}
