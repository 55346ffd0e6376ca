/* SPDX-License-Identifier: MIT */
/*
 * Emulated capture driver: qemu-x86_64 + hwprof-emu.so -> one perf.data.
 *
 * The plugin writes one raw file per guest process (src/emu/emu_raw.h) into
 * a temporary directory (emu_qemu.c runs it). Afterwards emu_raw.c puts
 * every timed record of every file in time order, emu_convert.c writes them
 * as perf.data, and emu_exact.c the exact per-site counts.
 *
 * The raw directory is next to the output (or in $HWPROF_EMU_TMPDIR) and is
 * removed afterwards unless $HWPROF_EMU_KEEP is set (debugging; the plugin
 * prints every asynchronous transfer it sees when $HWPROF_EMU_DEBUG is set).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/emu_internal.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_writer.h"
#include "util/error.h"
#include "util/opts.h"

int hwp__emu_filter_kinds(uint64_t bst, uint32_t *kinds, bool *callstack)
{
	const uint64_t types = HWP_BRANCH_ANY | HWP_BRANCH_ANY_CALL | HWP_BRANCH_ANY_RETURN |
			       HWP_BRANCH_IND_CALL | HWP_BRANCH_ABORT_TX | HWP_BRANCH_IN_TX |
			       HWP_BRANCH_NO_TX | HWP_BRANCH_COND | HWP_BRANCH_CALL_STACK |
			       HWP_BRANCH_IND_JUMP | HWP_BRANCH_CALL;
	uint32_t k = 0;

	if (!kinds || !callstack)
		return hwp__set_error(EINVAL, "hwp__emu_filter_kinds: no output");
#define K(x) (1u << HWP_EMU_K_##x)
	*callstack = false;
	if ((bst & (HWP_BRANCH_KERNEL | HWP_BRANCH_HV)) && !(bst & HWP_BRANCH_USER))
		return hwp__set_error(EINVAL, "emulation records user-space branches only (the "
				      "branch filter asks for kernel or hypervisor branches only)");
	if (!(bst & types) || (bst & (HWP_BRANCH_ANY | HWP_BRANCH_NO_TX)))
		k |= K(COND) | K(JMP) | K(CALL) | K(IJMP) | K(ICALL) | K(RET) | K(FAR) | K(IRQ) |
		     K(ERET);
	if (bst & HWP_BRANCH_ANY_CALL)
		k |= K(CALL) | K(ICALL) | K(IRQ);
	if (bst & HWP_BRANCH_ANY_RETURN)
		k |= K(RET) | K(FAR) | K(ERET);
	if (bst & HWP_BRANCH_IND_CALL)
		k |= K(ICALL);
	if (bst & HWP_BRANCH_COND)
		k |= K(COND);
	if (bst & HWP_BRANCH_IND_JUMP)
		k |= K(IJMP);
	if (bst & HWP_BRANCH_CALL)
		k |= K(CALL);
	if (bst & HWP_BRANCH_CALL_STACK) {
		k |= K(CALL) | K(ICALL) | K(RET) | K(FAR) | K(IRQ) | K(ERET);
		*callstack = true;
	}
#undef K
	*kinds = k;
	return 0;
}

/* Defaults and checks of the options; the branch filter as recorded. */
static int check_opts(struct hwp_emu *s)
{
	int err;

	if (s->o.argc < 1 || !s->o.argv || !s->o.argv[0])
		return hwp__set_error(EINVAL, "emulation: no program to run");
	if (!s->o.output)
		s->o.output = "perf.data";
	if (!s->o.period)
		s->o.period = HWP_EMU_DEFAULT_PERIOD;
	if (!s->o.depth)
		s->o.depth = HWP_EMU_DEFAULT_DEPTH;
	if (s->o.depth != 8 && s->o.depth != 16 && s->o.depth != 32 && s->o.depth != 64)
		return hwp__set_error(EINVAL, "branch-stack depth %u: must be 8, 16, 32 or 64",
				      s->o.depth);
	if (s->o.jitter > 100)
		return hwp__set_error(EINVAL, "period jitter %u%%: must be a percentage (0..100)",
				      s->o.jitter);
	s->bst = s->o.branch_filter;
	if (!(s->bst & (HWP_BRANCH_USER | HWP_BRANCH_KERNEL | HWP_BRANCH_HV)))
		s->bst |= HWP_BRANCH_USER;
	if (s->bst & (HWP_BRANCH_KERNEL | HWP_BRANCH_HV)) {
		if ((err = hwp__emu_filter_kinds(s->bst, &s->kinds, &s->callstack)) < 0)
			return err;
		s->bst &= ~(uint64_t)(HWP_BRANCH_KERNEL | HWP_BRANCH_HV);
	}
	if (!(s->bst & ~(uint64_t)(HWP_BRANCH_USER | HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES |
				   HWP_BRANCH_TYPE_SAVE | HWP_BRANCH_HW_INDEX |
				   HWP_BRANCH_PRIV_SAVE | HWP_BRANCH_COUNTERS)))
		s->bst |= HWP_BRANCH_ANY;
	return hwp__emu_filter_kinds(s->bst, &s->kinds, &s->callstack);
}

/* The raw recording goes next to the output (it is about as big, and /tmp
   may be a small tmpfs), unless HWPROF_EMU_TMPDIR says otherwise. */
static int make_raw_dir(struct hwp_emu *s)
{
	const char *tmp = getenv("HWPROF_EMU_TMPDIR");
	int e;

	if (tmp && *tmp) {
		snprintf(s->dir, sizeof(s->dir), "%s/hwprof-emu.XXXXXX", tmp);
	} else if (strcmp(s->o.output, "-") != 0) {
		const char *slash = strrchr(s->o.output, '/');

		if (slash)
			snprintf(s->dir, sizeof(s->dir), "%.*s/.hwprof-emu.XXXXXX",
				 (int)(slash - s->o.output), s->o.output);
		else
			snprintf(s->dir, sizeof(s->dir), ".hwprof-emu.XXXXXX");
		if (slash == s->o.output) /* "/perf.data" */
			snprintf(s->dir, sizeof(s->dir), "/.hwprof-emu.XXXXXX");
	} else {
		tmp = getenv("TMPDIR");
		snprintf(s->dir, sizeof(s->dir), "%s/hwprof-emu.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	}
	if (!mkdtemp(s->dir)) {
		e = errno;
		hwp__set_error(e, "%s: cannot create a temporary directory: %s", s->dir, strerror(e));
		s->dir[0] = 0;
		return -e;
	}
	if (s->dir[0] != '/') {
		char *abs = realpath(s->dir, NULL);

		if (abs) {
			snprintf(s->dir, sizeof(s->dir), "%s", abs);
			free(abs);
		}
	}
	return 0;
}

struct hwp_emu *hwp_emu__new(const struct hwp_emu_opts *opts)
{
	struct hwp_emu *s;
	int err = 0, e;

	s = calloc(1, sizeof(*s));
	if (!s) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	s->pid = -1;
	if (!opts) {
		err = hwp__set_error(EINVAL, "emulation: no options (the program to run)");
		goto fail;
	}
	if ((err = HWP_OPTS_LOAD(opts, &s->o, struct hwp_emu_opts)) < 0 ||
	    (err = check_opts(s)) < 0 || (err = hwp__emu_locate(s)) < 0)
		goto fail;
	/* the outputs: fail before running anything */
	s->w = hwp_writer__open(s->o.output);
	if (!s->w) { /* (the writer's message names the output and why) */
		err = -(errno ? errno : EIO);
		goto fail;
	}
	if (s->o.exact && !(s->exact = fopen(s->o.exact, "we"))) {
		e = errno;
		err = hwp__set_error(e, "%s: cannot write: %s", s->o.exact, strerror(e));
		goto fail;
	}
	if ((err = make_raw_dir(s)) < 0)
		goto fail;
	return s;
fail:
	hwp_emu__delete(s);
	errno = -err;
	return NULL;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX + 300];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

void hwp_emu__delete(struct hwp_emu *s)
{
	if (!s)
		return;
	hwp__emu_reap(s);
	if (s->w)
		hwp_writer__abort(s->w);
	if (s->exact)
		fclose(s->exact);
	if (s->dir[0] && !getenv("HWPROF_EMU_KEEP"))
		remove_dir(s->dir);
	free(s->qemu);
	free(s->plugin);
	free(s->prog);
	free(s);
}

int hwp_emu__finish(struct hwp_emu *s, struct hwp_emu_result *out)
{
	struct hwp__emu_conv c;
	struct hwp_emu_result local, *res = &local;
	const char *base;
	bool nothing;
	int err;

	if (!s || !s->w)
		return hwp__set_error(EINVAL, "hwp_emu__finish: invalid state");
	/* LOCAL starts as what hwp_emu__wait() put in OUT */
	if (out && (err = HWP_RESULT_BEGIN(out, &local, struct hwp_emu_result)) < 0)
		return err;
	if (!out)
		memset(&local, 0, sizeof(local));
	memset(&c, 0, sizeof(c));
	c.s = s;
	base = strrchr(s->o.argv[0], '/');
	snprintf(c.comm, sizeof(c.comm), "%s", base ? base + 1 : s->o.argv[0]);
	if ((err = hwp__emu_conv_load(&c)))
		goto out;
	/* when nothing was recorded, still leave a valid, empty perf.data behind */
	nothing = !c.nprocs;
	if ((err = hwp__emu_convert(&c, res)))
		goto out;
	res->bytes = hwp_writer__size(s->w);
	err = hwp_writer__close(s->w);
	s->w = NULL;
	if (err)
		goto out;
	if (s->exact) {
		if ((err = hwp__emu_write_exact(&c, &res->nr_sites)))
			goto out;
		if (fflush(s->exact) || ferror(s->exact)) {
			int e = errno ? errno : EIO;

			err = hwp__set_error(e, "%s: write failed: %s", s->o.exact, strerror(e));
			goto out;
		}
	}
	if (nothing)
		err = hwp__set_error(EIO, "%s did not start the program: nothing was recorded "
				     "(see its message above)", s->qemu);
out:
	hwp__emu_conv_free(&c);
	if (out)
		hwp__result_end(out, &local, sizeof(local));
	return err;
}
