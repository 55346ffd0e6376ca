/* SPDX-License-Identifier: MIT */
/*
 * The qemu process of an emulated capture: finding qemu-x86_64, the plugin
 * and the program; refusing programs qemu-x86_64 cannot run before anything
 * starts; spawning qemu with the plugin's options; waiting for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/emu_internal.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/path_search.h"
#include "util/shebang.h"

#define PLUGIN_NAME "hwprof-emu.so"

static const char *machine_name(unsigned m)
{
	switch (m) {
	case 3: return "i386";
	case 40: return "ARM";
	case 62: return "x86-64";
	case 183: return "AArch64";
	case 243: return "RISC-V";
	default: return NULL;
	}
}

/* PATH (shown as SHOWN) is an x86-64 ELF executable: 0, or <0 saying why not. */
static int check_program(const char *shown, const char *path)
{
	unsigned char h[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return hwp__set_error(errno, "%s: %s", shown, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return hwp__set_error(EISDIR, "%s: is a directory", shown);
	}
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n < 64 || memcmp(h, "\177ELF", 4) != 0)
		return hwp__set_error(ENOEXEC, "%s: not an ELF executable (emulation runs x86-64 "
				      "ELF programs)", shown);
	unsigned machine = h[18] | h[19] << 8;
	unsigned type = h[16] | h[17] << 8;

	if (h[5] != 1)
		return hwp__set_error(ENOEXEC, "%s: big-endian ELF, not x86-64", shown);
	if (machine != 62 || h[4] != 2) {
		const char *m = machine_name(machine);

		return hwp__set_error(ENOEXEC, "%s: ELF for %s%s, not x86-64 (emulation runs "
				      "x86-64 programs under qemu-x86_64)", shown,
				      m ? m : "another machine", h[4] == 1 ? " (32-bit)" : "");
	}
	if (type != 2 && type != 3)
		return hwp__set_error(ENOEXEC, "%s: not an executable ELF file (type %u)", shown,
				      type);
	return 0;
}

/* S->prog (shown as SHOWN), or when it is a script the interpreters the
   kernel would run for it (S->depth levels, as exec_follow.c follows a
   script the program execs): 0, or <0 saying why it cannot run here. */
static int resolve_program(struct hwp_emu *s, const char *shown)
{
	const char *cur = s->prog, *cur_shown = shown;

	for (s->depth = 0;; s->depth++) {
		unsigned char h[256];
		ssize_t n;
		int fd = open(cur, O_RDONLY | O_CLOEXEC), r;

		if (fd < 0)
			return s->depth ? hwp__set_error(errno, "%s: interpreter %s: %s", shown, cur,
							 strerror(errno))
					: hwp__set_error(errno, "%s: %s", shown, strerror(errno));
		n = read(fd, h, sizeof(h));
		close(fd);
		r = n > 0 ? hwp__shebang(h, (size_t)n, s->interp[s->depth], sizeof(s->interp[0]),
					 s->iarg[s->depth], sizeof(s->iarg[0]))
			  : 0;
		if (r == 0)
			return check_program(cur_shown, cur);
		if (r < 0)
			return hwp__set_error(ENOEXEC, "%s: a script whose #! line names no interpreter "
					      "(or is longer than 254 bytes)", cur_shown);
		if (s->depth + 1 == (int)(sizeof(s->interp) / sizeof(s->interp[0])))
			return hwp__set_error(ELOOP, "%s: more than %d levels of #! interpreters",
					      shown, s->depth + 1);
		cur = cur_shown = s->interp[s->depth];
	}
}

/*
 * The plugin: the one named by the options or $HWPROF_EMU_PLUGIN, else next
 * to the running binary (a build tree), else in ../lib/hwprof/ from it (an
 * installed hwprof: bin/hwprof and lib/hwprof/hwprof-emu.so).
 */
static int find_plugin(struct hwp_emu *s)
{
	const char *env = s->o.plugin ? s->o.plugin : getenv("HWPROF_EMU_PLUGIN");
	char exe[PATH_MAX], cand[2][PATH_MAX + 32];
	int ncand = 0;

	if (env && *env) {
		snprintf(cand[ncand++], sizeof(cand[0]), "%s", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		char *slash;

		if (n > 0) {
			exe[n] = 0;
			if ((slash = strrchr(exe, '/'))) {
				*slash = 0;
				snprintf(cand[ncand++], sizeof(cand[0]), "%s/" PLUGIN_NAME, exe);
				snprintf(cand[ncand++], sizeof(cand[0]), "%s/../lib/hwprof/" PLUGIN_NAME,
					 exe);
			}
		}
	}
	for (int i = 0; i < ncand; i++) {
		if (access(cand[i], R_OK) != 0)
			continue;
		/* qemu resolves the path itself: give it an absolute, clean one */
		s->plugin = realpath(cand[i], NULL);
		if (!s->plugin)
			s->plugin = strdup(cand[i]);
		return s->plugin ? 0 : hwp__set_error(ENOMEM, "out of memory");
	}
	if (!ncand)
		return hwp__set_error(ENOENT, PLUGIN_NAME ": emulation plugin not found: the "
				      "running binary's directory is unknown (set HWPROF_EMU_PLUGIN)");
	if (ncand == 1)
		return hwp__set_error(ENOENT, "%s: emulation plugin not found (HWPROF_EMU_PLUGIN)",
				      cand[0]);
	return hwp__set_error(ENOENT, PLUGIN_NAME ": emulation plugin not found; looked at %s "
			      "and %s (build it with 'make', or set HWPROF_EMU_PLUGIN)", cand[0],
			      cand[1]);
}

int hwp__emu_locate(struct hwp_emu *s)
{
	const char *env = s->o.qemu ? s->o.qemu : getenv("HWPROF_QEMU");
	const char *qemu = env && *env ? env : "qemu-x86_64";
	const char *prog = s->o.argv[0];
	int err;

	s->qemu = hwp__path_search(qemu, NULL);
	if (s->qemu && strchr(qemu, '/') && access(s->qemu, F_OK) != 0) {
		free(s->qemu);
		s->qemu = NULL;
	}
	if (!s->qemu)
		return hwp__set_error(ENOENT, "%s not found: install qemu-user (Debian: apt-get "
				      "install qemu-user)", qemu);
	if ((err = find_plugin(s)) < 0)
		return err;
	s->prog = hwp__path_search(prog, NULL);
	if (s->prog && strchr(prog, '/') && access(s->prog, F_OK) != 0) {
		free(s->prog);
		s->prog = NULL;
	}
	if (!s->prog)
		return hwp__set_error(ENOENT, "%s: %s", prog,
				      strchr(prog, '/') ? "no such file" : "command not found");
	return resolve_program(s, prog);
}

pid_t hwp__emu_pid(const struct hwp_emu *s)
{
	return s ? s->pid : -1;
}

void hwp__emu_reap(struct hwp_emu *s)
{
	if (s->pid > 0 && !s->waited) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->waited = true;
	}
	if (s->progress) {
		munmap((void *)s->progress, sizeof(*s->progress));
		s->progress = NULL;
	}
}

/* The page the plugin counts samples into (emu_raw.h). Without it the
   recording still works: there is just no progress to show. */
static void map_progress(struct hwp_emu *s)
{
	char path[PATH_MAX + 32];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/" HWP_EMU_PROGRESS_FILE, s->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (ftruncate(fd, (off_t)sizeof(*s->progress)) == 0) {
		p = mmap(NULL, sizeof(*s->progress), PROT_READ, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED)
			s->progress = p;
	}
	close(fd);
}

int hwp_emu__progress(const struct hwp_emu *s, struct hwp_emu_progress *out)
{
	struct hwp_emu_progress p;
	int rc;

	if (!s)
		return hwp__set_error(EINVAL, "hwp_emu__progress: no recording");
	if ((rc = HWP_RESULT_BEGIN(out, &p, struct hwp_emu_progress)) < 0)
		return rc;
	memset(&p, 0, sizeof(p));
	if (s->progress) {
		p.samples = __atomic_load_n(&s->progress->samples, __ATOMIC_RELAXED);
		p.taken = __atomic_load_n(&s->progress->taken, __ATOMIC_RELAXED);
	}
	hwp__result_end(out, &p, sizeof(p));
	return 0;
}

/* QEMU option syntax: a ',' inside a value is written ',,'. */
static size_t put_escaped(char *out, size_t cap, size_t pos, const char *s)
{
	for (; *s; s++) {
		if (*s == ',' && pos + 1 < cap)
			out[pos++] = ',';
		if (pos + 1 < cap)
			out[pos++] = *s;
	}
	out[pos < cap ? pos : cap - 1] = 0;
	return pos;
}

pid_t hwp_emu__start(struct hwp_emu *s)
{
	char plug[3 * PATH_MAX + 256];
	size_t pos = 0;
	char **args;
	int pfd[2], e = 0, n = 0;
	pid_t pid;

	if (!s || s->pid > 0)
		return hwp__set_error(EINVAL, "hwp_emu__start: invalid state");
	pos = put_escaped(plug, sizeof(plug), pos, s->plugin);
	pos += (size_t)snprintf(plug + pos, sizeof(plug) - pos, ",out=");
	pos = put_escaped(plug, sizeof(plug), pos, s->dir);
	/* model=0: no_flags and no_cycles clear what the predictor and the
	   cost model would give, so the plugin skips them (faster) */
	snprintf(plug + pos, sizeof(plug) - pos,
		 ",period=%llu,jitter=%u,seed=%llu,depth=%u,kinds=%#x,callstack=%d,chain=%d,exact=%d,model=%d,mem=%llu",
		 /* memory samples only: no branch sample ever falls due */
		 s->o.mem_period ? 1ull << 62 : (unsigned long long)s->o.period, s->o.jitter,
		 (unsigned long long)s->o.seed, s->o.depth, s->kinds,
		 s->callstack, s->o.callchain && !s->o.mem_period, s->exact != NULL,
		 (s->bst & (HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES)) !=
			 (HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES),
		 (unsigned long long)s->o.mem_period);

	map_progress(s);
	args = calloc((size_t)s->o.argc + 8 + 2 * (size_t)s->depth, sizeof(*args));
	if (!args)
		return hwp__set_error(ENOMEM, "out of memory");
	args[n++] = s->qemu;
	args[n++] = "-plugin";
	args[n++] = plug;
	args[n++] = "-0";
	args[n++] = s->depth ? s->interp[s->depth - 1] : s->o.argv[0];
	args[n++] = "--";
	args[n++] = s->depth ? s->interp[s->depth - 1] : s->prog;
	/* a script: each level's interpreter argument and script, as the
	   kernel's binfmt_script builds argv */
	for (int d = s->depth; d-- > 0;) {
		if (s->iarg[d][0])
			args[n++] = s->iarg[d];
		args[n++] = d ? s->interp[d - 1] : s->prog;
	}
	for (int i = 1; i < s->o.argc; i++)
		args[n++] = s->o.argv[i];
	args[n] = NULL;

	/* the child reports a failed exec through a close-on-exec pipe */
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		e = errno;
		free(args);
		return hwp__set_error(e, "pipe: %s", strerror(e));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
		free(args);
		return hwp__set_error(e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(pfd[0]);
		execv(s->qemu, args);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	free(args);
	s->pid = pid;
	if (read(pfd[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		close(pfd[0]);
		waitpid(pid, NULL, 0);
		s->waited = true;
		return hwp__set_error(e, "%s: cannot run: %s (install qemu-user)", s->qemu,
				      strerror(e));
	}
	close(pfd[0]);
	return pid;
}

int hwp_emu__wait(struct hwp_emu *s, struct hwp_emu_result *out)
{
	struct hwp_emu_result res;
	int st, e;
	pid_t r;

	if (!s || s->pid <= 0)
		return hwp__set_error(EINVAL, "hwp_emu__wait: not started");
	if (out && (e = HWP_RESULT_BEGIN(out, &res, struct hwp_emu_result)) < 0)
		return e;
	if (s->waited)
		return 0;
	r = waitpid(s->pid, &st, 0);
	if (r < 0) {
		e = errno;
		if (e == EINTR)
			return hwp__set_error(EINTR, "interrupted while waiting for %s", s->qemu);
		return hwp__set_error(e, "waitpid: %s", strerror(e));
	}
	s->waited = true;
	if (out) {
		memset(&res, 0, sizeof(res));
		if (WIFEXITED(st)) {
			res.exited = true;
			res.exit_status = WEXITSTATUS(st);
		} else if (WIFSIGNALED(st)) {
			res.term_signal = WTERMSIG(st);
		}
		hwp__result_end(out, &res, sizeof(res));
	}
	return 0;
}
