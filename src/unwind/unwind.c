/* SPDX-License-Identifier: MIT */
/*
 * The unwinder (see unwind.h): address spaces as libdwfl sessions, the
 * Dwfl_Thread_Callbacks that feed them one sample at a time, and the end
 * of each unwinding told apart (done, stack copy too short, a binary
 * missing, stopped).
 */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/maps_internal.h"
#include "unwind/unwind.h"
#include "unwind/unwind_files.h"
#include "unwind/unwind_internal.h"
#include "unwind/unwind_regs.h"
#include "unwind/unwind_rules.h"
#include "util/error.h"
#include "util/vec.h"

#define MAX_SPACES MAX_SPACES_KEPT
/* A read this far above the stack pointer, past a stack copy that filled
   its size, is a read of the stack the copy did not reach. */
#define STACK_REACH (64ull << 20)

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const struct hwp__ufile *f = *userdata;
	int fd;

	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink_file, (void)debuglink_crc;
	/* the separate debug file the binary's lookup found (build-id first) */
	if (!f || !f->debug_path)
		return -1;
	fd = open(f->debug_path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !(*debuginfo_file_name = strdup(f->debug_path))) {
		close(fd);
		return -1;
	}
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	/* every module is reported with its file: find_elf is never asked */
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* ---- the sample's memory ---- */

bool hwp__unwind_read(struct hwp__unwinder *u, uint64_t addr, uint64_t *val)
{
	uint64_t sp = u->regs.sp;

	if (addr >= sp && addr - sp <= u->stack_len && u->stack_len - (addr - sp) >= 8) {
		memcpy(val, u->stack + (addr - sp), 8);
		return true;
	}
	/* outside the copy: the file behind the mapping (code, read-only data) */
	const struct hwp_map *m = hwp_thread__find_map(u->th, HWP_MISC_USER, addr);
	if (m && !m->identity && m->filename && m->filename[0]) {
		struct hwp__ufile *f = hwp__ufiles_get(&u->files, m);
		if (f && f->found && hwp__ufile_read(f, hwp_map__map_ip(m, addr), val))
			return true;
	}
	/* past the end of the copy: the stack went on (the copy filled its
	   size) or had ended (the copy stopped short at its top) */
	if (addr >= sp && addr - sp < STACK_REACH)
		u->read_fail = u->stack_full ? HWP__UNWIND_STACK_SHORT : HWP__READ_TOP;
	else
		u->read_fail = HWP__UNWIND_STOPPED;
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct hwp__space *sp = arg;
	uint64_t v;

	(void)dwfl;
	if (!hwp__unwind_read(sp->u, addr, &v))
		return false;
	*result = v;
	return true;
}

/* ---- the one thread of a sample ---- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl, (void)arg, (void)thread_arg;
	return 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = arg;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct hwp__dwarf_regs *r = ((struct hwp__space *)thread_arg)->u->init;
	Dwarf_Word w[HWP__DWARF_REGS];

	/* each run of sampled registers at once */
	for (unsigned i = 0; i < r->nregs;) {
		if (!(r->have >> i & 1)) {
			i++;
			continue;
		}
		unsigned e = i;
		for (; e < r->nregs && (r->have >> e & 1); e++)
			w[e - i] = r->val[e];
		if (!dwfl_thread_state_registers(thread, (int)i, e - i, w))
			return false;
		i = e;
	}
	dwfl_thread_state_register_pc(thread, r->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- address spaces ---- */

static int space_start(struct hwp__space *sp, uint16_t e_machine);
static int space_restart(struct hwp__space *sp);

static void space_free(struct hwp__space *sp)
{
	if (!sp)
		return;
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	if (sp->arch)
		elf_end(sp->arch);
	free(sp->mods);
	free(sp);
}

/* A Dwfl for the space, attached with an ELF header alone naming the
   architecture (so that it does not depend on which module comes first). */
static int space_start(struct hwp__space *sp, uint16_t e_machine)
{
	Elf64_Ehdr *h = (Elf64_Ehdr *)(void *)sp->ehdr;

	memset(sp->ehdr, 0, sizeof(sp->ehdr));
	memcpy(h->e_ident, ELFMAG, SELFMAG);
	h->e_ident[EI_CLASS] = ELFCLASS64;
	h->e_ident[EI_DATA] = ELFDATA2LSB;
	h->e_ident[EI_VERSION] = EV_CURRENT;
	h->e_type = ET_EXEC;
	h->e_machine = e_machine;
	h->e_version = EV_CURRENT;
	h->e_ehsize = sizeof(*h);
	sp->nmods = 0;
	sp->stale = false;
	if (!(sp->dwfl = dwfl_begin(&dwfl_callbacks)) || !(sp->arch = elf_memory((char *)sp->ehdr, sizeof(*h))))
		return hwp__set_error(ENOMEM, "unwinding: %s", dwfl_errmsg(-1));
	if (!dwfl_attach_state(sp->dwfl, sp->arch, 1, &thread_callbacks, sp)) {
		dwfl_end(sp->dwfl);
		sp->dwfl = NULL;
		return hwp__set_error(ENOTSUP, "unwinding: no unwinder for machine %u: %s", e_machine,
				      dwfl_errmsg(-1));
	}
	sp->u->st.spaces++;
	return 0;
}

/* Starts SP afresh (a module moved). */
static int space_restart(struct hwp__space *sp)
{
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	if (sp->arch)
		elf_end(sp->arch);
	sp->dwfl = NULL;
	sp->arch = NULL;
	return space_start(sp, sp->e_machine);
}

static struct hwp__space *space_get(struct hwp__unwinder *u, const struct hwp_thread *th, uint16_t e_machine)
{
	const void *key = hwp__thread_maps_key(th);
	size_t lru = 0;

	for (size_t i = 0; i < u->nspaces; i++) {
		struct hwp__space *sp = u->spaces[i];
		if (sp->key == key && sp->e_machine == e_machine) {
			sp->used = ++u->clock;
			/* a restart that failed (out of memory) left it without a
			   Dwfl; an unwinding that failed left it stale */
			int err = sp->dwfl && !sp->stale ? 0 : space_restart(sp);
			if (err < 0) {
				errno = -err;
				return NULL;
			}
			return sp;
		}
		if (sp->used < u->spaces[lru]->used)
			lru = i;
	}
	struct hwp__space *sp = calloc(1, sizeof(*sp));
	if (!sp) {
		errno = ENOMEM;
		return NULL;
	}
	sp->u = u;
	sp->key = key;
	sp->e_machine = e_machine;
	sp->used = ++u->clock;
	int err = space_start(sp, e_machine);
	if (err < 0) {
		space_free(sp);
		errno = -err; /* ENOMEM, or ENOTSUP: no unwinder for the architecture */
		return NULL;
	}
	if (u->nspaces == MAX_SPACES) {
		space_free(u->spaces[lru]);
		u->spaces[lru] = sp;
	} else {
		u->spaces[u->nspaces++] = sp;
	}
	return sp;
}

static void note_missing(struct hwp__unwinder *u, struct hwp__ufile *f)
{
	size_t len = strlen(u->st.missing);

	if (f->said)
		return;
	f->said = true;
	if (len + strlen(f->path) + 3 < sizeof(u->st.missing))
		snprintf(u->st.missing + len, sizeof(u->st.missing) - len, "%s%s", len ? ", " : "", f->path);
}

struct hwp__smod *hwp__space_mod_at(struct hwp__space *sp, uint64_t pc)
{
	for (size_t i = 0; i < sp->nmods; i++)
		if (pc >= sp->mods[i].lo && pc < sp->mods[i].hi)
			return &sp->mods[i];
	return NULL;
}

static bool space_has(const struct hwp__space *sp, const Dwfl_Module *mod)
{
	for (size_t i = 0; i < sp->nmods; i++)
		if (sp->mods[i].mod == mod)
			return true;
	return false;
}

static int count_module(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	(void)mod, (void)ud, (void)name, (void)start;
	++*(size_t *)arg;
	return DWARF_CB_OK;
}

/* Whether every module SP keeps is still one of its Dwfl's after a report
   that gave MOD (NULL: none). libdwfl frees a module at dwfl_report_end()
   when a report found it in the way (the same name and range:
   DWFL_E_OVERLAP, the module marked for removal), which would leave SP's
   pointer to it dangling. The Dwfl's modules are those SP keeps and the
   one just reported (a report adds one at most): a count tells. */
static bool space_mods_live(const struct hwp__space *sp, Dwfl_Module *mod)
{
	size_t n = 0;

	if (mod && space_has(sp, mod))
		return false; /* a module kept, given again */
	return dwfl_getmodules(sp->dwfl, count_module, &n, 0) == 0 && n == sp->nmods + (mod != NULL);
}

int hwp__space_report(struct hwp__space *sp, uint64_t pc, struct hwp__smod **out)
{
	struct hwp__unwinder *u = sp->u;
	const struct hwp_map *m = hwp_thread__find_map(u->th, HWP_MISC_USER, pc);
	uint64_t bias;

	*out = NULL;
	/* the modules kept may be gone: nothing of the space is used until
	   it starts afresh */
	if (sp->stale)
		return HWP__REPORT_STALE;
	if (!m || m->identity || !m->filename || !m->filename[0])
		return HWP__REPORT_NO_FILE;
	struct hwp__smod *sm = hwp__space_mod_at(sp, pc);
	if (sm && sm->map_file == m->filename && sm->map_start == m->start && sm->map_pgoff == m->pgoff) {
		*out = sm;
		return 0;
	}
	struct hwp__ufile *f = hwp__ufiles_get(&u->files, m);
	if (!f)
		return -ENOMEM;
	if (!f->found) {
		/* a pseudo file ([vdso]) has no path to find: walked by frame
		   pointers like anonymous code */
		if (m->filename[0] == '[')
			return HWP__REPORT_NO_FILE;
		note_missing(u, f);
		return HWP__REPORT_MISSING;
	}
	if (f->e_machine != sp->e_machine || !hwp__ufile_bias(f, m, &bias))
		return HWP__REPORT_NO_FILE;
	if (sm) {
		/* the module the address space had here is still what is mapped */
		if (sm->f != f || sm->bias != bias) {
			sp->stale = true;
			return HWP__REPORT_STALE;
		}
		sm->map_file = m->filename;
		sm->map_start = m->start;
		sm->map_pgoff = m->pgoff;
		*out = sm;
		return 0;
	}
	/* libdwfl places an executable (ET_EXEC) at its link-time addresses
	   whatever the base it is given: pages of it mapped elsewhere (V8
	   maps node's embedded builtins again next to its JIT code) cannot
	   be a module of their own, and reporting them would find the
	   executable's module in the way. Walked like JIT code. */
	if (f->e_type == ET_EXEC && bias != 0)
		return HWP__REPORT_NO_FILE;
	/* the file's extent at this bias must not overlap a module reported */
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < f->nloads; i++) {
		if (f->loads[i].vaddr < lo)
			lo = f->loads[i].vaddr;
		if (f->loads[i].vaddr + f->loads[i].memsz > hi)
			hi = f->loads[i].vaddr + f->loads[i].memsz;
	}
	for (size_t i = 0; i < sp->nmods; i++)
		if (lo + bias < sp->mods[i].hi && hi + bias > sp->mods[i].lo) {
			sp->stale = true;
			return HWP__REPORT_STALE;
		}
	dwfl_report_begin_add(sp->dwfl);
	/* (an ET_EXEC is here at bias 0, see above: libdwfl's base for it) */
	Dwfl_Module *mod = dwfl_report_elf(sp->dwfl, f->path, f->elf_path, -1, bias, true);
	const char *why = mod ? NULL : dwfl_errmsg(-1);
	dwfl_report_end(sp->dwfl, NULL, NULL);
	/* a module kept that the report dropped (or gave again): the space
	   starts afresh (hwp__space_report() says nothing more until then) */
	if (!space_mods_live(sp, mod)) {
		sp->stale = true;
		return HWP__REPORT_STALE;
	}
	if (!mod) {
		hwp__log(HWP_LOG_DEBUG, "unwinding: %s: %s", f->elf_path, why);
		return HWP__REPORT_NO_FILE;
	}
	void **ud;
	Dwarf_Addr start, end;
	dwfl_module_info(mod, &ud, &start, &end, NULL, NULL, NULL, NULL);
	*ud = f;
	sm = HWP_VEC_PUSH(sp->mods, sp->nmods, sp->mods_cap);
	if (!sm) {
		sp->stale = true; /* a module of the Dwfl not kept */
		return -ENOMEM;
	}
	*sm = (struct hwp__smod){ .mod = mod, .lo = start, .hi = end, .bias = bias, .f = f,
				  .map_start = m->start, .map_pgoff = m->pgoff, .map_file = m->filename };
	*out = sm;
	return 0;
}

/* ---- one sample through libdwfl ---- */

/*
 * A frame's address as perf 6.1 reports it: the pc of the first frame and
 * of a frame a signal interrupted (its caller was the signal trampoline),
 * every other one minus one (the call instruction). That is libunwind's
 * rule, which perf 6.1 is built with: unlike libdwfl's activation (which
 * also counts the trampoline itself), the trampoline's own frame is
 * decremented too.
 */
static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct hwp__space *sp = arg;
	struct hwp__unwinder *u = sp->u;
	struct hwp__smod *sm;
	Dwarf_Addr pc;

	u->read_fail = 0;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* the module first: libdwfl unwinds the frame from it next */
	int r = hwp__space_report(sp, pc, &sm);
	if (r < 0 || r == HWP__REPORT_STALE) {
		/* (a stale space is marked so by the report) */
		u->dwfl_err = r < 0 ? r : 0;
		return DWARF_CB_ABORT;
	}
	u->last_no_file = r == HWP__REPORT_NO_FILE || r == HWP__REPORT_MISSING;
	Dwarf_Word fp;
	u->last_fp_zero = dwfl_frame_reg(state, sp->e_machine == EM_AARCH64 ? 29 : 6, &fp) == 0 && fp == 0;
	if (u->skip_first) {
		/* a restart's first frame: the run before recorded it */
		u->skip_first = false;
		return DWARF_CB_OK;
	}
	/* unwound through a signal trampoline's CFI: the previous frame's */
	int sig = 0;
	bool kept = false;
	if (u->n && u->prev_mod && (sig = hwp__rule_flags(u, &sp->mods[u->prev_mod - 1], u->prev_look, &kept)) < 0) {
		u->dwfl_err = sig;
		return DWARF_CB_ABORT;
	}
	/* rbx: libdwfl lost it where the previous frame's row left it
	   unspecified (elfutils' x86-64 defaults, see unwind_rules.c); that
	   frame's is carried, as the cached rules keep it */
	Dwarf_Word rbx = 0;
	bool have_rbx = sp->e_machine == EM_X86_64 && dwfl_frame_reg(state, 3, &rbx) == 0;
	bool carry = sp->e_machine == EM_X86_64 && !have_rbx && kept && u->prev_rbx_ok;
	if (carry)
		rbx = u->prev_rbx;
	u->prev_rbx = rbx;
	u->prev_rbx_ok = have_rbx || carry;
	uint64_t look = !u->n || sig ? pc : pc - 1;
	u->ips[u->n++] = look;
	u->prev_look = look;
	/* (by index: reporting a module may move the array) */
	struct hwp__smod *lm = sm && look >= sm->lo && look < sm->hi ? sm : hwp__space_mod_at(sp, look);
	u->prev_mod = lm ? (size_t)(lm - sp->mods) + 1 : 0;
	if (u->n >= u->max) {
		u->hit_max = true;
		return DWARF_CB_ABORT;
	}
	/* a binary not found: its CFI unknown, a frame-pointer guess through
	   code that may not keep one would add frames that are not there */
	if (r == HWP__REPORT_MISSING)
		return DWARF_CB_ABORT;
	if (carry) {
		/* libdwfl cannot be given a register of a frame it unwound: its
		   unwinding goes on from this frame's registers, rbx added, the
		   pc its lookup address (a first frame's is not decremented) */
		struct hwp__dwarf_regs *x = &u->restart;
		x->e_machine = sp->e_machine;
		x->nregs = u->regs.nregs;
		x->have = 0;
		for (unsigned i = 0; i < x->nregs; i++) {
			Dwarf_Word v;
			if (dwfl_frame_reg(state, i, &v) == 0) {
				x->val[i] = v;
				x->have |= 1u << i;
			}
		}
		x->val[3] = rbx;
		x->have |= 1u << 3;
		x->pc = look;
		x->sp = x->val[7];
		u->restarting = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

static int unwind_dwfl(struct hwp__unwinder *u, struct hwp__space *sp)
{
	int tries = 0;

	/* the cached rules' pass found the space stale: that is the sample's
	   first try (libdwfl would find it at the same frame) */
	if (sp->stale) {
		int err = space_restart(sp);
		if (err)
			return err;
		tries = 1;
	}
	for (;; tries++) {
		int r;
		u->n = 0;
		u->prev_mod = 0;
		u->prev_rbx_ok = false;
		u->init = &u->regs;
		u->skip_first = false;
		do {
			/* (again from a frame whose rbx libdwfl lost: frame_callback()) */
			u->hit_max = u->last_no_file = u->last_fp_zero = u->restarting = false;
			u->read_fail = 0;
			u->dwfl_err = 0;
			r = dwfl_getthread_frames(sp->dwfl, 1, frame_callback, sp);
			u->init = &u->restart;
			u->skip_first = true;
		} while (u->restarting && !u->dwfl_err && !sp->stale);
		if (u->dwfl_err)
			return u->dwfl_err;
		if (sp->stale) {
			/* a module no longer mapped where the space had it (a
			   library unloaded, another in its place): start afresh,
			   once for the sample */
			int err = space_restart(sp);
			if (err)
				return err;
			if (tries)
				return HWP__UNWIND_STOPPED;
			continue;
		}
		if (u->hit_max)
			return HWP__UNWIND_DONE;
		if (u->read_fail)
			return hwp__unwind_read_end(u->read_fail);
		if (r == 0)
			return HWP__UNWIND_DONE;
		if (u->last_no_file)
			return HWP__UNWIND_NO_BINARY;
		/* no CFI and a frame pointer of 0 (process entry points like the
		   dynamic loader's _start): the end the ABI marks */
		return u->last_fp_zero ? HWP__UNWIND_DONE : HWP__UNWIND_STOPPED;
	}
}

/* ---- the unwinder ---- */

struct hwp__unwinder *hwp__unwinder_new(const struct hwp__unwind_env *env)
{
	struct hwp__unwinder *u = calloc(1, sizeof(*u));

	if (!u) {
		errno = ENOMEM;
		return NULL;
	}
	elf_version(EV_CURRENT);
	if (hwp__ufiles_init(&u->files, env->symfs, env->debug_dirs, env->n_debug_dirs, env->build_ids,
			     env->nr_build_ids) < 0) {
		hwp__unwinder_delete(u);
		errno = ENOMEM;
		return NULL;
	}
	u->e_machine = env->e_machine;
	u->no_rules = env->no_rules;
	return u;
}

void hwp__unwinder_delete(struct hwp__unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nspaces; i++)
		space_free(u->spaces[i]);
	hwp__ufiles_free(&u->files);
	free(u);
}

const struct hwp__unwind_stats *hwp__unwinder_stats(const struct hwp__unwinder *u)
{
	return &u->st;
}

void hwp__unwinder_add_stats(struct hwp__unwinder *u, const struct hwp__unwind_stats *st)
{
	u->st.samples += st->samples;
	for (int i = 0; i < HWP__UNWIND_NSTOPS; i++)
		u->st.stops[i] += st->stops[i];
	u->st.frames += st->frames;
	u->st.by_rules += st->by_rules;
	u->st.spaces += st->spaces;
	u->st.rules += st->rules;
	if (st->stack_size > u->st.stack_size)
		u->st.stack_size = st->stack_size;
	/* the names not said yet (each ", "-separated list holds whole names) */
	char names[sizeof(st->missing)];
	snprintf(names, sizeof(names), "%s", st->missing);
	for (char *save = NULL, *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		while (*n == ' ')
			n++;
		size_t len = strlen(u->st.missing), nl = strlen(n);
		bool have = false;
		for (const char *p = u->st.missing; (p = strstr(p, n)); p += nl)
			have |= (p == u->st.missing || p[-1] == ' ') && (p[nl] == ',' || !p[nl]);
		if (!have && len + nl + 3 < sizeof(u->st.missing))
			snprintf(u->st.missing + len, sizeof(u->st.missing) - len, "%s%s", len ? ", " : "", n);
	}
}

/* The architecture: the recording's, else that of the sampled binary. */
static uint16_t sample_machine(struct hwp__unwinder *u, const struct hwp_thread *th, uint64_t ip)
{
	const struct hwp_map *m = hwp_thread__find_map(th, HWP_MISC_USER, ip);
	struct hwp__ufile *f = m && !m->identity && m->filename ? hwp__ufiles_get(&u->files, m) : NULL;
	return f && f->found ? f->e_machine : 0;
}

static int unwind_sample(struct hwp__unwinder *u, const struct hwp_sample *s, const struct hwp_thread *th)
{
	if (!th)
		return HWP__UNWIND_NO_REGS;
	if (!(s->sample_type & HWP_SAMPLE_REGS_USER))
		return HWP__UNWIND_NO_STACK;
	if (s->regs_user_abi == HWP__REGS_ABI_NONE)
		return HWP__UNWIND_NO_REGS;
	if (s->stack_user.size > u->st.stack_size)
		u->st.stack_size = s->stack_user.size;
	/* perf unwinds nothing without a copy (dyn_size 0: the copy failed) */
	if (!(s->sample_type & HWP_SAMPLE_STACK_USER) || !s->stack_user.size || !s->stack_user_dyn_size ||
	    s->stack_user_dyn_size > s->stack_user.size)
		return HWP__UNWIND_NO_STACK;
	/* the architecture: the recording's, else the sampled binary's */
	uint16_t machine = u->e_machine;
	if (!machine && s->cpumode == HWP_MISC_USER)
		machine = sample_machine(u, th, s->ip);
	if (!machine)
		return HWP__UNWIND_ARCH;
	int r = hwp__unwind_regs(machine, s->regs_user_abi, s->regs_user_mask, s->regs_user.data,
				 s->regs_user.size, &u->regs);
	if (r == -ENOTSUP)
		return HWP__UNWIND_ARCH;
	if (r)
		return HWP__UNWIND_NO_STACK;
	u->th = th;
	u->stack = s->stack_user.data;
	u->stack_len = s->stack_user_dyn_size;
	u->stack_full = s->stack_user_dyn_size == s->stack_user.size;
	struct hwp__space *sp = space_get(u, th, machine);
	if (!sp)
		return errno == ENOMEM ? -ENOMEM : HWP__UNWIND_ARCH;
	if (!u->no_rules) {
		r = hwp__unwind_rules(u, sp);
		if (r != HWP__RULES_FALLBACK) {
			if (r >= 0)
				u->st.by_rules++;
			return r;
		}
	}
	return unwind_dwfl(u, sp);
}

static const char *const stop_names[HWP__UNWIND_NSTOPS] = {
	"done", "no registers", "no stack copy", "past the stack copy", "no binary", "stopped", "architecture",
};

int hwp__unwind(struct hwp__unwinder *u, const struct hwp_sample *s, const struct hwp_thread *th, uint64_t *ips,
		size_t max, size_t *n)
{
	u->ips = ips;
	u->max = max;
	u->n = 0;
	*n = 0;
	u->st.samples++;
	if (!max)
		return HWP__UNWIND_DONE;
	int r = unwind_sample(u, s, th);
	if (r < 0)
		return r;
	/* the first few stacks that end early, for -vv */
	if (r >= HWP__UNWIND_STACK_SHORT && u->n && u->said < 8)
		hwp__log(HWP_LOG_DEBUG, "unwinding pid %d tid %d at %#" PRIx64 ": %s after %zu frames, at %#" PRIx64 "%s",
			 (int)s->pid, (int)s->tid, s->ip, stop_names[r], u->n, u->ips[u->n - 1],
			 ++u->said == 8 ? " (no more such lines)" : "");
	*n = u->n;
	u->st.frames += u->n;
	u->st.stops[r]++;
	return r;
}
