/* SPDX-License-Identifier: MIT */
/*
 * Emulated capture driver: qemu-x86_64 + hwprof-emu.so -> one perf.data.
 *
 * The plugin writes one raw file per guest process (src/emu/emu_raw.h) into
 * a temporary directory. Afterwards every timed record of every file is put
 * in time order (CLOCK_MONOTONIC, shared by all processes) and written with
 * the perf.data writer:
 *   PROC (first process)  -> COMM (exec)
 *   PROC (fork child)     -> FORK + COMM
 *   THREAD / THREAD_EXIT  -> FORK + COMM / EXIT
 *   EXIT (exit_group)     -> EXIT
 *   MMAP                  -> MMAP2 with the module's build-id
 *   SAMPLE                -> SAMPLE (IP, TID, TIME, PERIOD, BRANCH_STACK)
 * plus header features ARCH, CPUID, NRCPUS, ... (this host), CMDLINE,
 * BUILD_ID (every module mapped) and EVENT_DESC ("branches:emulated").
 *
 * Module offsets: QEMU loads the guest where it likes; samples carry guest
 * addresses, and the MMAP2 records map them to file offsets of the real
 * files, so perf symbolizes by module offset as usual.
 *
 * The raw directory is next to the output (or in $HWPROF_EMU_TMPDIR) and is
 * removed afterwards unless $HWPROF_EMU_KEEP is set (debugging; the plugin
 * prints every asynchronous transfer it sees when $HWPROF_EMU_DEBUG is set).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/emu_raw.h"
#include "hwprof/emulate.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_writer.h"

#define EVENT_NAME "branches:emulated"

struct hwp_emu {
	struct hwp_emu_opts o;
	char *qemu, *plugin, *prog;
	char dir[PATH_MAX];
	struct hwp_writer *w;
	FILE *exact;
	uint64_t bst;
	uint32_t kinds;
	bool callstack;
	pid_t pid;
	bool waited;
};

/* ------------------------------------------------------------ helpers */

static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, F_OK) == 0 ? strdup(name) : NULL;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		struct stat st;

		if (len == 0)
			snprintf(buf, sizeof(buf), "./%s", name);
		else
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return strdup(buf);
		if (!end)
			break;
		path = end + 1;
	}
	return NULL;
}

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

static int check_program(const char *shown, const char *path)
{
	unsigned char h[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return hwp_set_error(errno, "%s: %s", shown, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return hwp_set_error(EISDIR, "%s: is a directory", shown);
	}
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n >= 2 && h[0] == '#' && h[1] == '!')
		return hwp_set_error(ENOEXEC, "%s: a script, not an x86-64 ELF executable; "
				     "record its interpreter instead (-- /bin/sh %s)", shown, shown);
	if (n < 64 || memcmp(h, "\177ELF", 4) != 0)
		return hwp_set_error(ENOEXEC, "%s: not an ELF executable (--emulate runs x86-64 "
				     "ELF programs)", shown);
	unsigned machine = h[18] | h[19] << 8;
	unsigned type = h[16] | h[17] << 8;

	if (h[5] != 1)
		return hwp_set_error(ENOEXEC, "%s: big-endian ELF, not x86-64", shown);
	if (machine != 62 || h[4] != 2) {
		const char *m = machine_name(machine);

		return hwp_set_error(ENOEXEC, "%s: ELF for %s%s, not x86-64 (--emulate runs "
				     "x86-64 programs under qemu-x86_64)", shown,
				     m ? m : "another machine", h[4] == 1 ? " (32-bit)" : "");
	}
	if (type != 2 && type != 3)
		return hwp_set_error(ENOEXEC, "%s: not an executable ELF file (type %u)", shown,
				     type);
	return 0;
}

static char *default_plugin(void)
{
	char exe[PATH_MAX], buf[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	snprintf(buf, sizeof(buf), "%s/hwprof-emu.so", exe);
	return strdup(buf);
}

int hwp_emu__filter_kinds(uint64_t bst, uint32_t *kinds, bool *callstack)
{
	const uint64_t types = HWP_BRANCH_ANY | HWP_BRANCH_ANY_CALL | HWP_BRANCH_ANY_RETURN |
			       HWP_BRANCH_IND_CALL | HWP_BRANCH_ABORT_TX | HWP_BRANCH_IN_TX |
			       HWP_BRANCH_NO_TX | HWP_BRANCH_COND | HWP_BRANCH_CALL_STACK |
			       HWP_BRANCH_IND_JUMP | HWP_BRANCH_CALL;
	uint32_t k = 0;

#define K(x) (1u << HWP_EMU_K_##x)
	*callstack = false;
	if ((bst & (HWP_BRANCH_KERNEL | HWP_BRANCH_HV)) && !(bst & HWP_BRANCH_USER))
		return hwp_set_error(EINVAL, "emulation records user-space branches only "
				     "(add 'u' to -j)");
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

/* ------------------------------------------------------------- lifecycle */

struct hwp_emu *hwp_emu__new(const struct hwp_emu_opts *opts)
{
	struct hwp_emu *s;
	const char *tmp, *env;
	int err = 0;

	if (!opts || opts->sz < sizeof(*opts) || opts->argc < 1 || !opts->argv || !opts->argv[0]) {
		hwp_set_error(EINVAL, "record --emulate: no program to run (-- PROG ARGS)");
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		hwp_set_error(ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->o = *opts;
	s->pid = -1;
	if (!s->o.output)
		s->o.output = "perf.data";
	if (!s->o.period)
		s->o.period = HWP_EMU_DEFAULT_PERIOD;
	if (!s->o.depth)
		s->o.depth = HWP_EMU_DEFAULT_DEPTH;
	if (s->o.depth != 8 && s->o.depth != 16 && s->o.depth != 32 && s->o.depth != 64) {
		err = hwp_set_error(EINVAL, "--depth %u: must be 8, 16, 32 or 64", s->o.depth);
		goto fail;
	}
	if (s->o.jitter > 100) {
		err = hwp_set_error(EINVAL, "--jitter %u: must be a percentage (0..100)",
				    s->o.jitter);
		goto fail;
	}
	s->bst = s->o.branch_filter;
	if (!(s->bst & (HWP_BRANCH_USER | HWP_BRANCH_KERNEL | HWP_BRANCH_HV)))
		s->bst |= HWP_BRANCH_USER;
	if (s->bst & (HWP_BRANCH_KERNEL | HWP_BRANCH_HV)) {
		if ((err = hwp_emu__filter_kinds(s->bst, &s->kinds, &s->callstack)) < 0)
			goto fail;
		s->bst &= ~(uint64_t)(HWP_BRANCH_KERNEL | HWP_BRANCH_HV);
	}
	if (!(s->bst & ~(uint64_t)(HWP_BRANCH_USER | HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES |
				   HWP_BRANCH_TYPE_SAVE | HWP_BRANCH_HW_INDEX |
				   HWP_BRANCH_PRIV_SAVE | HWP_BRANCH_COUNTERS)))
		s->bst |= HWP_BRANCH_ANY;
	if ((err = hwp_emu__filter_kinds(s->bst, &s->kinds, &s->callstack)) < 0)
		goto fail;

	/* qemu */
	env = s->o.qemu ? s->o.qemu : getenv("HWPROF_QEMU");
	s->qemu = env && *env ? find_in_path(env) : find_in_path("qemu-x86_64");
	if (!s->qemu) {
		err = hwp_set_error(ENOENT, "%s not found: install qemu-user (Debian: apt-get "
				    "install qemu-user)", env && *env ? env : "qemu-x86_64");
		goto fail;
	}
	/* the plugin */
	env = s->o.plugin ? s->o.plugin : getenv("HWPROF_EMU_PLUGIN");
	s->plugin = env && *env ? strdup(env) : default_plugin();
	if (!s->plugin || access(s->plugin, R_OK) != 0) {
		err = hwp_set_error(ENOENT, "%s: emulation plugin not found (build it with 'make', "
				    "or set HWPROF_EMU_PLUGIN)", s->plugin ? s->plugin : "hwprof-emu.so");
		goto fail;
	}
	if (s->plugin[0] != '/') {
		char *abs = realpath(s->plugin, NULL);

		if (abs) {
			free(s->plugin);
			s->plugin = abs;
		}
	}
	/* the program */
	s->prog = find_in_path(s->o.argv[0]);
	if (!s->prog) {
		err = hwp_set_error(ENOENT, "%s: %s", s->o.argv[0],
				    strchr(s->o.argv[0], '/') ? "no such file" : "command not found");
		goto fail;
	}
	if ((err = check_program(s->o.argv[0], s->prog)) < 0)
		goto fail;
	/* the outputs: fail before running anything */
	s->w = hwp_writer__open(s->o.output);
	if (!s->w) {
		err = -errno;
		hwp_set_error(errno, "%s: cannot write: %s", s->o.output, strerror(errno));
		goto fail;
	}
	if (s->o.exact && !(s->exact = fopen(s->o.exact, "we"))) {
		err = hwp_set_error(errno, "%s: cannot write: %s", s->o.exact, strerror(errno));
		goto fail;
	}
	/* The raw recording goes next to the output (it is about as big, and
	   /tmp may be a small tmpfs), unless HWPROF_EMU_TMPDIR says otherwise. */
	tmp = getenv("HWPROF_EMU_TMPDIR");
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
		err = hwp_set_error(errno, "%s: cannot create a temporary directory: %s", s->dir,
				    strerror(errno));
		s->dir[0] = 0;
		goto fail;
	}
	if (s->dir[0] != '/') {
		char *abs = realpath(s->dir, NULL);

		if (abs) {
			snprintf(s->dir, sizeof(s->dir), "%s", abs);
			free(abs);
		}
	}
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
	if (s->pid > 0 && !s->waited) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
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

pid_t hwp_emu__pid(const struct hwp_emu *s)
{
	return s ? s->pid : -1;
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
		return hwp_set_error(EINVAL, "hwp_emu__start: invalid state");
	pos = put_escaped(plug, sizeof(plug), pos, s->plugin);
	pos += (size_t)snprintf(plug + pos, sizeof(plug) - pos, ",out=");
	pos = put_escaped(plug, sizeof(plug), pos, s->dir);
	snprintf(plug + pos, sizeof(plug) - pos,
		 ",period=%llu,jitter=%u,depth=%u,kinds=%#x,callstack=%d,exact=%d",
		 (unsigned long long)s->o.period, s->o.jitter, s->o.depth, s->kinds,
		 s->callstack, s->exact != NULL);

	args = calloc((size_t)s->o.argc + 8, sizeof(*args));
	if (!args)
		return hwp_set_error(ENOMEM, "out of memory");
	args[n++] = s->qemu;
	args[n++] = "-plugin";
	args[n++] = plug;
	args[n++] = "-0";
	args[n++] = s->o.argv[0];
	args[n++] = "--";
	args[n++] = s->prog;
	for (int i = 1; i < s->o.argc; i++)
		args[n++] = s->o.argv[i];
	args[n] = NULL;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		free(args);
		return hwp_set_error(errno, "pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
		free(args);
		return hwp_set_error(e, "fork: %s", strerror(e));
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
		return hwp_set_error(e, "%s: cannot run: %s (install qemu-user)", s->qemu,
				     strerror(e));
	}
	close(pfd[0]);
	return pid;
}

int hwp_emu__wait(struct hwp_emu *s, struct hwp_emu_result *res)
{
	int st;
	pid_t r;

	if (!s || s->pid <= 0)
		return hwp_set_error(EINVAL, "hwp_emu__wait: not started");
	if (s->waited)
		return 0;
	r = waitpid(s->pid, &st, 0);
	if (r < 0) {
		if (errno == EINTR)
			return -EINTR;
		return hwp_set_error(errno, "waitpid: %s", strerror(errno));
	}
	s->waited = true;
	if (res) {
		memset(res, 0, sizeof(*res));
		if (WIFEXITED(st)) {
			res->exited = true;
			res->exit_status = WEXITSTATUS(st);
		} else if (WIFSIGNALED(st)) {
			res->term_signal = WTERMSIG(st);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ ELF facts */

struct module {
	char *path;
	bool read;
	uint8_t build_id[20];
	uint8_t bid_size;
	struct {
		uint64_t off, vaddr, filesz;
	} load[16];
	unsigned nload;
	bool listed; /* in the BUILD_ID feature */
};

static uint64_t rd(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* Build-id (first NT_GNU_BUILD_ID note) and PT_LOAD segments of an ELF64 file. */
static void module_read(struct module *m)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *p;
	uint64_t phoff, size;
	unsigned phentsize, phnum;

	m->read = true;
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_size < 64) {
		close(fd);
		return;
	}
	size = (uint64_t)st.st_size;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	if (memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1)
		goto out;
	phoff = rd(p + 32, 8);
	phentsize = (unsigned)rd(p + 54, 2);
	phnum = (unsigned)rd(p + 56, 2);
	if (phentsize < 56 || phoff > size || (uint64_t)phnum * phentsize > size - phoff)
		goto out;
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + (uint64_t)i * phentsize;
		uint32_t type = (uint32_t)rd(ph, 4);
		uint64_t off = rd(ph + 8, 8), vaddr = rd(ph + 16, 8), filesz = rd(ph + 32, 8);

		if (type == 1 && m->nload < 16) { /* PT_LOAD */
			m->load[m->nload].off = off;
			m->load[m->nload].vaddr = vaddr;
			m->load[m->nload].filesz = filesz;
			m->nload++;
		} else if (type == 4 && !m->bid_size && off <= size && filesz <= size - off) {
			/* PT_NOTE: namesz, descsz, type, name, desc (4-aligned) */
			uint64_t q = off, end = off + filesz;

			while (q + 12 <= end) {
				uint64_t nsz = rd(p + q, 4), dsz = rd(p + q + 4, 4);
				uint32_t nt = (uint32_t)rd(p + q + 8, 4);
				uint64_t name = q + 12, desc = name + ((nsz + 3) & ~3ull);

				if (desc + dsz > end)
					break;
				if (nt == 3 && nsz == 4 && !memcmp(p + name, "GNU", 4) && dsz &&
				    dsz <= 20) {
					memcpy(m->build_id, p + desc, dsz);
					m->bid_size = (uint8_t)dsz;
					break;
				}
				q = desc + ((dsz + 3) & ~3ull);
			}
		}
	}
out:
	munmap(p, size);
}

static int64_t module_vaddr(const struct module *m, uint64_t off)
{
	for (unsigned i = 0; i < m->nload; i++)
		if (off >= m->load[i].off && off < m->load[i].off + m->load[i].filesz)
			return (int64_t)(off - m->load[i].off + m->load[i].vaddr);
	return -1;
}

/* --------------------------------------------------------- raw records */

struct map {
	uint64_t start, len, pgoff;
	struct module *mod;
};

struct proc {
	uint32_t pid, ppid, ptid;
	uint64_t time;
	bool child;
	int parent;
	uint8_t *data;
	size_t len;
	struct map *maps;
	size_t nmaps, cap_maps;
	/* exact: the last complete snapshot */
	const struct hwp_emu_hdr **snap, **tent;
	size_t nsnap, ntent, cap_snap, cap_tent;
	uint64_t tent_id;
	bool in_snap;
	bool has_stats;
	struct hwp_emu_stats stats;
};

struct ev {
	uint64_t time;
	uint64_t seq;
	uint32_t proc;
	const struct hwp_emu_hdr *r;
};

struct conv {
	struct hwp_emu *s;
	struct proc *procs;
	size_t nprocs;
	struct ev *evs;
	size_t nevs, cap_evs;
	struct module **mods;
	size_t nmods, cap_mods;
	char comm[16];
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *q;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 64;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return hwp_set_error(ENOMEM, "out of memory");
	*p = q;
	*cap = n;
	return 0;
}

static struct module *module_get(struct conv *c, const char *path)
{
	struct module *m;

	for (size_t i = 0; i < c->nmods; i++)
		if (!strcmp(c->mods[i]->path, path))
			return c->mods[i];
	if (grow((void **)&c->mods, &c->cap_mods, c->nmods + 1, sizeof(*c->mods)))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		return NULL;
	}
	module_read(m);
	c->mods[c->nmods++] = m;
	return m;
}

static int add_ev(struct conv *c, uint32_t proc, uint64_t time, const struct hwp_emu_hdr *r)
{
	int err = grow((void **)&c->evs, &c->cap_evs, c->nevs + 1, sizeof(*c->evs));

	if (err)
		return err;
	c->evs[c->nevs].time = time;
	c->evs[c->nevs].seq = c->nevs;
	c->evs[c->nevs].proc = proc;
	c->evs[c->nevs].r = r;
	c->nevs++;
	return 0;
}

static int snap_add(const struct hwp_emu_hdr ***arr, size_t *n, size_t *cap,
		    const struct hwp_emu_hdr *r)
{
	int err = grow((void **)arr, cap, *n + 1, sizeof(**arr));

	if (!err)
		(*arr)[(*n)++] = r;
	return err;
}

static size_t min_size(uint32_t type)
{
	switch (type) {
	case HWP_EMU_PROC: return sizeof(struct hwp_emu_proc);
	case HWP_EMU_SAMPLE: return sizeof(struct hwp_emu_sample);
	case HWP_EMU_MMAP: return sizeof(struct hwp_emu_mmap) + 8;
	case HWP_EMU_THREAD:
	case HWP_EMU_THREAD_EXIT:
	case HWP_EMU_EXIT:
	case HWP_EMU_EXEC:
	case HWP_EMU_EXEC_FAIL: return sizeof(struct hwp_emu_task);
	case HWP_EMU_SNAP_BEGIN:
	case HWP_EMU_SNAP_END: return sizeof(struct hwp_emu_snap);
	case HWP_EMU_SITE: return sizeof(struct hwp_emu_site);
	case HWP_EMU_TARGET: return sizeof(struct hwp_emu_target);
	case HWP_EMU_STATS: return sizeof(struct hwp_emu_stats);
	case HWP_EMU_LOST: return sizeof(struct hwp_emu_lost);
	default: return 8;
	}
}

static int scan_file(struct conv *c, uint32_t pi)
{
	struct proc *p = &c->procs[pi];
	int err;

	for (size_t ch = 0; ch < p->len; ch += HWP_EMU_CHUNK) {
		size_t end = ch + HWP_EMU_CHUNK < p->len ? ch + HWP_EMU_CHUNK : p->len;

		for (size_t off = ch; off + 8 <= end;) {
			const struct hwp_emu_hdr *h = (const void *)(p->data + off);

			if (!h->type || h->size < 8 || h->size % 8 || h->size > end - off ||
			    h->size < min_size(h->type))
				break;
			off += h->size;
			switch (h->type) {
			case HWP_EMU_SAMPLE: {
				const struct hwp_emu_sample *r = (const void *)h;

				if (r->nr > HWP_EMU_MAX_DEPTH ||
				    sizeof(*r) + (size_t)r->nr * 24 > h->size)
					continue;
				err = add_ev(c, pi, r->time, h);
				break;
			}
			case HWP_EMU_PROC:
				err = add_ev(c, pi, ((const struct hwp_emu_proc *)h)->time, h);
				break;
			case HWP_EMU_MMAP:
				err = add_ev(c, pi, ((const struct hwp_emu_mmap *)h)->time, h);
				break;
			case HWP_EMU_THREAD:
			case HWP_EMU_THREAD_EXIT:
			case HWP_EMU_EXIT:
			case HWP_EMU_EXEC:
			case HWP_EMU_EXEC_FAIL:
				err = add_ev(c, pi, ((const struct hwp_emu_task *)h)->time, h);
				break;
			case HWP_EMU_LOST:
				err = add_ev(c, pi, ((const struct hwp_emu_lost *)h)->time, h);
				break;
			case HWP_EMU_STATS:
				p->stats = *(const struct hwp_emu_stats *)h;
				p->has_stats = true;
				err = 0;
				break;
			case HWP_EMU_SNAP_BEGIN:
				p->in_snap = true;
				p->tent_id = ((const struct hwp_emu_snap *)h)->id;
				p->ntent = 0;
				err = 0;
				break;
			case HWP_EMU_SITE:
			case HWP_EMU_TARGET:
				err = p->in_snap ? snap_add(&p->tent, &p->ntent, &p->cap_tent, h) : 0;
				break;
			case HWP_EMU_SNAP_END:
				if (p->in_snap && p->tent_id == ((const struct hwp_emu_snap *)h)->id) {
					const struct hwp_emu_hdr **t = p->snap;
					size_t cap = p->cap_snap;

					p->snap = p->tent;
					p->nsnap = p->ntent;
					p->cap_snap = p->cap_tent;
					p->tent = t;
					p->cap_tent = cap;
					p->ntent = 0;
				}
				p->in_snap = false;
				err = 0;
				break;
			default:
				err = 0;
				break;
			}
			if (err)
				return err;
		}
	}
	return 0;
}

static int load_files(struct conv *c)
{
	DIR *d = opendir(c->s->dir);
	struct dirent *e;
	int err = 0;

	if (!d)
		return hwp_set_error(errno, "%s: %s", c->s->dir, strerror(errno));
	while ((e = readdir(d))) {
		char path[PATH_MAX + 300];
		size_t nl = strlen(e->d_name);
		const struct hwp_emu_proc *h;
		struct proc *p;
		struct stat st;
		int fd;

		if (nl < 5 || strcmp(e->d_name + nl - 4, ".raw"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", c->s->dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*h)) {
			close(fd);
			continue;
		}
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		close(fd);
		if (m == MAP_FAILED)
			continue;
		h = m;
		if (h->h.type != HWP_EMU_PROC || h->magic != HWP_EMU_MAGIC ||
		    h->version != HWP_EMU_VERSION) {
			munmap(m, (size_t)st.st_size);
			continue;
		}
		struct proc *np = realloc(c->procs, (c->nprocs + 1) * sizeof(*np));

		if (!np) {
			munmap(m, (size_t)st.st_size);
			err = hwp_set_error(ENOMEM, "out of memory");
			break;
		}
		c->procs = np;
		p = &c->procs[c->nprocs++];
		memset(p, 0, sizeof(*p));
		p->data = m;
		p->len = (size_t)st.st_size;
		p->pid = h->pid;
		p->ppid = h->ppid;
		p->ptid = h->ptid;
		p->time = h->time;
		p->child = h->flags & HWP_EMU_PROC_CHILD;
		p->parent = -1;
	}
	closedir(d);
	if (err)
		return err;
	for (size_t i = 0; i < c->nprocs; i++) {
		for (size_t j = 0; j < c->nprocs; j++)
			if (c->procs[i].child && c->procs[j].pid == c->procs[i].ppid && i != j)
				c->procs[i].parent = (int)j;
		if ((err = scan_file(c, (uint32_t)i)))
			return err;
	}
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void free_conv(struct conv *c)
{
	for (size_t i = 0; i < c->nprocs; i++) {
		munmap(c->procs[i].data, c->procs[i].len);
		free(c->procs[i].maps);
		free(c->procs[i].snap);
		free(c->procs[i].tent);
	}
	free(c->procs);
	free(c->evs);
	for (size_t i = 0; i < c->nmods; i++) {
		free(c->mods[i]->path);
		free(c->mods[i]);
	}
	free(c->mods);
}

/* ---------------------------------------------------------------- writing */

static void set_id(struct hwp_sample *id, uint32_t pid, uint32_t tid, uint64_t time)
{
	memset(id, 0, sizeof(*id));
	id->pid = pid;
	id->tid = tid;
	id->time = time;
}

static uint64_t entry_mask(uint64_t bst)
{
	uint64_t keep = ~0ull;

	if (bst & HWP_BRANCH_NO_FLAGS)
		keep &= ~3ull;
	if (bst & HWP_BRANCH_NO_CYCLES)
		keep &= ~(0xffffull << HWP_BRF_CYCLES_SHIFT);
	if (!(bst & HWP_BRANCH_TYPE_SAVE))
		keep &= ~(0xfull << HWP_BRF_TYPE_SHIFT);
	if (!(bst & HWP_BRANCH_PRIV_SAVE))
		keep &= ~(7ull << HWP_BRF_PRIV_SHIFT);
	return keep;
}

static int write_event(struct conv *c, int ai, const struct ev *e, uint64_t fmask)
{
	struct hwp_writer *w = c->s->w;
	const struct proc *p = &c->procs[e->proc];
	struct hwp_sample id;
	int err = 0;

	switch (e->r->type) {
	case HWP_EMU_PROC: {
		set_id(&id, p->pid, p->pid, e->time);
		if (p->child) {
			uint32_t ptid = p->ptid ? p->ptid : p->ppid;

			err = hwp_writer__add_fork_exit(w, ai, HWP_RECORD_FORK, p->pid, p->ppid, p->pid,
							ptid, e->time, &id);
			if (!err)
				err = hwp_writer__add_comm(w, ai, p->pid, p->pid, c->comm, false, &id);
		} else {
			err = hwp_writer__add_comm(w, ai, p->pid, p->pid, c->comm, true, &id);
		}
		break;
	}
	case HWP_EMU_THREAD: {
		const struct hwp_emu_task *t = (const void *)e->r;

		set_id(&id, p->pid, t->tid, e->time);
		err = hwp_writer__add_fork_exit(w, ai, HWP_RECORD_FORK, p->pid, p->pid, t->tid,
						t->ptid ? t->ptid : p->pid, e->time, &id);
		if (!err)
			err = hwp_writer__add_comm(w, ai, p->pid, t->tid, c->comm, false, &id);
		break;
	}
	case HWP_EMU_THREAD_EXIT:
	case HWP_EMU_EXIT: {
		const struct hwp_emu_task *t = (const void *)e->r;
		uint32_t tid = e->r->type == HWP_EMU_EXIT ? p->pid : t->tid;

		set_id(&id, p->pid, tid, e->time);
		err = hwp_writer__add_fork_exit(w, ai, HWP_RECORD_EXIT, p->pid,
						e->r->type == HWP_EMU_EXIT ? p->ppid : p->pid, tid,
						tid, e->time, &id);
		break;
	}
	case HWP_EMU_MMAP: {
		const struct hwp_emu_mmap *m = (const void *)e->r;
		const char *path = (const char *)(m + 1);
		struct proc *pm = &c->procs[e->proc];
		struct module *mod;

		if (!memchr(path, 0, m->h.size - sizeof(*m)))
			break;
		mod = module_get(c, path);
		if (!mod)
			return hwp_set_error(ENOMEM, "out of memory");
		if ((err = grow((void **)&pm->maps, &pm->cap_maps, pm->nmaps + 1,
				sizeof(*pm->maps))))
			return err;
		pm->maps[pm->nmaps].start = m->start;
		pm->maps[pm->nmaps].len = m->len;
		pm->maps[pm->nmaps].pgoff = m->pgoff;
		pm->maps[pm->nmaps].mod = mod;
		pm->nmaps++;
		set_id(&id, p->pid, m->tid, e->time);
		err = hwp_writer__add_mmap2(w, ai, p->pid, m->tid, m->start, m->len, m->pgoff,
					    mod->bid_size ? mod->build_id : NULL, mod->bid_size,
					    m->prot, m->flags, path, HWP_MISC_USER, &id);
		if (!err && mod->bid_size && !mod->listed) {
			err = hwp_writer__add_build_id(w, -1, HWP_MISC_USER, mod->build_id,
						       mod->bid_size, path);
			mod->listed = true;
		}
		break;
	}
	case HWP_EMU_SAMPLE: {
		const struct hwp_emu_sample *r = (const void *)e->r;
		const struct hwp_emu_entry *en = (const void *)(r + 1);
		struct hwp_branch_entry br[HWP_EMU_MAX_DEPTH];
		struct hwp_sample_in in;
		struct hwp_sample s;
		uint64_t chain[2] = { HWP_CONTEXT_USER, r->ip };

		memset(&s, 0, sizeof(s));
		s.cpumode = HWP_MISC_USER;
		s.ip = r->ip;
		s.pid = p->pid;
		s.tid = r->tid;
		s.time = r->time;
		s.period = r->period;
		s.branch_nr = r->nr;
		s.branch_hw_idx = r->hw_idx;
		s.branch_has_hw_idx = (c->s->bst & HWP_BRANCH_HW_INDEX) != 0;
		for (uint32_t i = 0; i < r->nr; i++)
			hwp_branch_entry__decode(en[i].from, en[i].to, en[i].flags & fmask, &br[i]);
		memset(&in, 0, sizeof(in));
		in.s = &s;
		in.branches = br;
		if (c->s->o.lbr_callchain) {
			s.callchain_nr = 2;
			in.callchain = chain;
		}
		err = hwp_writer__add_sample(w, ai, &in);
		break;
	}
	default:
		break;
	}
	return err;
}

/* ---------------------------------------------------------- exact counts */

struct xtarget {
	const struct module *mod;
	uint64_t off;
	uint64_t count;
};

struct xsite {
	const struct module *mod;
	uint64_t off;
	uint32_t kind;
	uint64_t executed, taken;
	struct xtarget *t;
	size_t nt, capt;
};

static const struct map *find_map(const struct conv *c, const struct proc *p, uint64_t addr)
{
	for (int depth = 0; p && depth < 64; depth++) {
		for (size_t i = p->nmaps; i-- > 0;)
			if (addr >= p->maps[i].start && addr - p->maps[i].start < p->maps[i].len)
				return &p->maps[i];
		p = p->parent >= 0 ? &c->procs[p->parent] : NULL;
	}
	return NULL;
}

static void locate(const struct conv *c, const struct proc *p, uint64_t addr,
		   const struct module **mod, uint64_t *off)
{
	const struct map *m = find_map(c, p, addr);

	*mod = m ? m->mod : NULL;
	*off = m ? addr - m->start + m->pgoff : addr;
}

static int xsite_cmp(const void *a, const void *b)
{
	const struct xsite *x = a, *y = b;
	const char *px = x->mod ? x->mod->path : "", *py = y->mod ? y->mod->path : "";
	int r = strcmp(px, py);

	if (r)
		return r;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static int xtarget_cmp(const void *a, const void *b)
{
	const struct xtarget *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->mod != y->mod) {
		const char *px = x->mod ? x->mod->path : "", *py = y->mod ? y->mod->path : "";

		return strcmp(px, py);
	}
	return x->off < y->off ? -1 : x->off > y->off;
}

static const char *kind_name(uint32_t k)
{
	static const char *const n[HWP_EMU_K_COUNT] = {
		[HWP_EMU_K_COND] = "cond",       [HWP_EMU_K_JMP] = "jmp",
		[HWP_EMU_K_CALL] = "call",       [HWP_EMU_K_IJMP] = "ijmp",
		[HWP_EMU_K_ICALL] = "icall",     [HWP_EMU_K_RET] = "ret",
		[HWP_EMU_K_SYSCALL] = "syscall", [HWP_EMU_K_TRAP] = "trap",
		[HWP_EMU_K_FAR] = "far",
	};
	return k < HWP_EMU_K_COUNT && n[k] ? n[k] : "other";
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_loc(FILE *f, const struct module *mod, uint64_t off)
{
	fputs("\"module\":", f);
	json_str(f, mod ? mod->path : "[unknown]");
	if (mod && mod->bid_size) {
		fputs(",\"build_id\":\"", f);
		for (unsigned i = 0; i < mod->bid_size; i++)
			fprintf(f, "%02x", mod->build_id[i]);
		fputc('"', f);
	}
	fprintf(f, ",\"offset\":\"0x%llx\"", (unsigned long long)off);
	if (mod) {
		int64_t va = module_vaddr(mod, off);

		if (va >= 0)
			fprintf(f, ",\"vaddr\":\"0x%llx\"", (unsigned long long)va);
	}
}

static int write_exact(struct conv *c, uint64_t *nr_out)
{
	struct xsite *xs = NULL;
	size_t n = 0, cap = 0;
	FILE *f = c->s->exact;
	int err = 0;

	/* sites of every process, merged by (module, offset, kind) */
	for (size_t pi = 0; pi < c->nprocs; pi++) {
		const struct proc *p = &c->procs[pi];

		for (size_t i = 0; i < p->nsnap; i++) {
			const struct hwp_emu_site *r = (const void *)p->snap[i];

			if (r->h.type != HWP_EMU_SITE)
				continue;
			if ((err = grow((void **)&xs, &cap, n + 1, sizeof(*xs))))
				goto out;
			memset(&xs[n], 0, sizeof(xs[n]));
			locate(c, p, r->addr, &xs[n].mod, &xs[n].off);
			xs[n].kind = r->kind;
			xs[n].executed = r->executed;
			xs[n].taken = r->taken;
			n++;
		}
	}
	if (n)
		qsort(xs, n, sizeof(*xs), xsite_cmp);
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (m && xs[m - 1].mod == xs[i].mod && xs[m - 1].off == xs[i].off &&
		    xs[m - 1].kind == xs[i].kind) {
			xs[m - 1].executed += xs[i].executed;
			xs[m - 1].taken += xs[i].taken;
		} else {
			xs[m++] = xs[i];
		}
	}
	n = m;
	/* indirect targets */
	for (size_t pi = 0; pi < c->nprocs; pi++) {
		const struct proc *p = &c->procs[pi];

		for (size_t i = 0; i < p->nsnap; i++) {
			const struct hwp_emu_target *r = (const void *)p->snap[i];
			struct xsite key, *site;
			struct xtarget t;

			if (r->h.type != HWP_EMU_TARGET)
				continue;
			memset(&key, 0, sizeof(key));
			locate(c, p, r->site, &key.mod, &key.off);
			site = NULL;
			for (uint32_t k = HWP_EMU_K_IJMP; k <= HWP_EMU_K_ICALL && !site; k++) {
				key.kind = k;
				site = n ? bsearch(&key, xs, n, sizeof(*xs), xsite_cmp) : NULL;
			}
			if (!site)
				continue;
			locate(c, p, r->target, &t.mod, &t.off);
			t.count = r->count;
			size_t j;

			for (j = 0; j < site->nt; j++)
				if (site->t[j].mod == t.mod && site->t[j].off == t.off)
					break;
			if (j < site->nt) {
				site->t[j].count += t.count;
				continue;
			}
			if ((err = grow((void **)&site->t, &site->capt, site->nt + 1, sizeof(t))))
				goto out;
			site->t[site->nt++] = t;
		}
	}
	for (size_t i = 0; i < n; i++) {
		fputc('{', f);
		json_loc(f, xs[i].mod, xs[i].off);
		fprintf(f, ",\"kind\":\"%s\",\"executed\":%llu,\"taken\":%llu", kind_name(xs[i].kind),
			(unsigned long long)xs[i].executed, (unsigned long long)xs[i].taken);
		if (xs[i].kind == HWP_EMU_K_COND)
			fprintf(f, ",\"not_taken\":%llu",
				(unsigned long long)(xs[i].executed - xs[i].taken));
		if (xs[i].kind == HWP_EMU_K_IJMP || xs[i].kind == HWP_EMU_K_ICALL) {
			if (xs[i].nt)
				qsort(xs[i].t, xs[i].nt, sizeof(*xs[i].t), xtarget_cmp);
			fputs(",\"targets\":[", f);
			for (size_t j = 0; j < xs[i].nt; j++) {
				fputs(j ? ",{" : "{", f);
				json_loc(f, xs[i].t[j].mod, xs[i].t[j].off);
				fprintf(f, ",\"count\":%llu}", (unsigned long long)xs[i].t[j].count);
			}
			fputc(']', f);
		}
		fputs("}\n", f);
	}
	*nr_out = n;
out:
	for (size_t i = 0; i < n; i++)
		free(xs[i].t);
	free(xs);
	return err;
}

/* ------------------------------------------------------------- finishing */

static int write_features(struct conv *c)
{
	struct hwp_emu *s = c->s;
	const char **argv = NULL;
	char num[5][48];
	int argc = 0, err;

	if ((err = hwp_writer__set_host_features(s->w)))
		return err;
	if (s->o.cmdline && s->o.cmdline_argc > 0)
		return hwp_writer__set_cmdline(s->w, s->o.cmdline_argc, s->o.cmdline);
	argv = calloc((size_t)s->o.argc + 16, sizeof(*argv));
	if (!argv)
		return hwp_set_error(ENOMEM, "out of memory");
	argv[argc++] = "hwprof";
	argv[argc++] = "record";
	argv[argc++] = "--emulate";
	snprintf(num[0], sizeof(num[0]), "-c%llu", (unsigned long long)s->o.period);
	argv[argc++] = num[0];
	if (s->o.jitter) {
		snprintf(num[1], sizeof(num[1]), "--jitter=%u", s->o.jitter);
		argv[argc++] = num[1];
	}
	snprintf(num[2], sizeof(num[2]), "--depth=%u", s->o.depth);
	argv[argc++] = num[2];
	snprintf(num[3], sizeof(num[3]), "--branch-filter=%#llx", (unsigned long long)s->bst);
	argv[argc++] = num[3];
	argv[argc++] = "-o";
	argv[argc++] = s->o.output;
	argv[argc++] = "--";
	for (int i = 0; i < s->o.argc; i++)
		argv[argc++] = s->o.argv[i];
	err = hwp_writer__set_cmdline(s->w, argc, argv);
	free(argv);
	return err;
}

int hwp_emu__finish(struct hwp_emu *s, struct hwp_emu_result *res)
{
	struct conv c;
	struct hwp_attr a;
	uint64_t fmask;
	int ai, err;
	const char *base;
	struct hwp_emu_result local;

	if (!s || !s->w)
		return hwp_set_error(EINVAL, "hwp_emu__finish: invalid state");
	if (!res) {
		memset(&local, 0, sizeof(local));
		res = &local;
	}
	memset(&c, 0, sizeof(c));
	c.s = s;
	base = strrchr(s->o.argv[0], '/');
	snprintf(c.comm, sizeof(c.comm), "%s", base ? base + 1 : s->o.argv[0]);
	if ((err = load_files(&c)))
		goto out;
	if (!c.nprocs) {
		err = hwp_set_error(EIO, "%s did not start the program: nothing was recorded "
				    "(see its message above)", s->qemu);
		/* still leave a valid, empty perf.data behind */
	}
	if (c.nevs)
		qsort(c.evs, c.nevs, sizeof(*c.evs), ev_cmp);

	memset(&a, 0, sizeof(a));
	a.type = 0;   /* PERF_TYPE_HARDWARE */
	a.config = 4; /* PERF_COUNT_HW_BRANCH_INSTRUCTIONS: taken ones, modelled */
	a.sample_period = s->o.period;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_PERIOD |
			HWP_SAMPLE_BRANCH_STACK;
	if (s->o.lbr_callchain)
		a.sample_type |= HWP_SAMPLE_CALLCHAIN;
	a.branch_sample_type = s->bst;
	a.flags = 1ull << HWP_ATTR_DISABLED | 1ull << HWP_ATTR_INHERIT |
		  1ull << HWP_ATTR_EXCLUDE_KERNEL | 1ull << HWP_ATTR_EXCLUDE_HV |
		  1ull << HWP_ATTR_MMAP | 1ull << HWP_ATTR_COMM | 1ull << HWP_ATTR_ENABLE_ON_EXEC |
		  1ull << HWP_ATTR_TASK | 1ull << HWP_ATTR_SAMPLE_ID_ALL | 1ull << HWP_ATTR_MMAP2 |
		  1ull << HWP_ATTR_COMM_EXEC | 1ull << HWP_ATTR_BUILD_ID;
	ai = hwp_writer__add_attr(s->w, &a, NULL, 0, EVENT_NAME);
	if (ai < 0) {
		err = ai;
		goto out;
	}
	fmask = entry_mask(s->bst);
	int werr = err;

	err = 0;
	for (size_t i = 0; i < c.nevs; i++) {
		const struct hwp_emu_hdr *r = c.evs[i].r;

		if ((err = write_event(&c, ai, &c.evs[i], fmask)))
			goto out;
		switch (r->type) {
		case HWP_EMU_PROC:
			res->nr_processes++;
			break;
		case HWP_EMU_THREAD:
			res->nr_threads++;
			break;
		case HWP_EMU_EXEC:
			res->nr_execs++;
			break;
		case HWP_EMU_EXEC_FAIL:
			if (res->nr_execs)
				res->nr_execs--;
			break;
		case HWP_EMU_SAMPLE:
			res->samples++;
			break;
		case HWP_EMU_LOST:
			res->lost += ((const struct hwp_emu_lost *)r)->count;
			break;
		default:
			break;
		}
		if (i % 16384 == 16383 && (err = hwp_writer__add_finished_round(s->w)))
			goto out;
	}
	for (size_t i = 0; i < c.nprocs; i++) {
		if (!c.procs[i].has_stats) {
			res->stats_missing = true;
			continue;
		}
		res->taken += c.procs[i].stats.taken;
		res->async += c.procs[i].stats.async;
		res->lost += c.procs[i].stats.lost;
	}
	if ((err = write_features(&c)))
		goto out;
	res->bytes = hwp_writer__size(s->w);
	err = hwp_writer__close(s->w);
	s->w = NULL;
	if (err)
		goto out;
	if (s->exact) {
		if ((err = write_exact(&c, &res->nr_sites)))
			goto out;
		if (fflush(s->exact) || ferror(s->exact)) {
			err = hwp_set_error(errno ? errno : EIO, "%s: write failed: %s", s->o.exact,
					    strerror(errno ? errno : EIO));
			goto out;
		}
	}
	err = werr;
out:
	free_conv(&c);
	return err;
}
