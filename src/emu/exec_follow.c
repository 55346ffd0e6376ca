/* SPDX-License-Identifier: MIT */
/*
 * Following execve (exec_follow.h). The checks before the exec stand in for
 * the kernel's: the new QEMU cannot report a failed exec to the guest (it
 * would print an error and exit where the guest expects execve to return
 * ENOENT, as execvp does while it tries each PATH entry), so anything the
 * kernel might refuse is left to the native syscall, which then fails with
 * the kernel's own errno.
 */
#include "exec_follow.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "qemu_api.h"
#include "util/shebang.h"

#define AT_FDCWD_ (-100)
#define AT_EMPTY_PATH_ 0x1000
#define MAX_ARG_BYTES (128u * 1024) /* the kernel's MAX_ARG_STRLEN */
#define MAX_ARGS (1u << 20)
#define MAX_SCRIPT_DEPTH 4 /* the kernel allows a few interpreter levels too */

struct strv {
	char **v;
	size_t n, cap;
};

static bool strv_push(struct strv *s, char *str)
{
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return true;
}

static void strv_free(struct strv *s, size_t owned_from)
{
	for (size_t i = owned_from; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static bool gread(const struct hwp_emu_follow *f, uint64_t ga, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)(ga + f->guest_base), len };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* The guest's NUL-terminated string at GA (malloc'd), NULL when unreadable
   or longer than the kernel takes. Read up to page ends only: the string
   may end just before an unmapped page. */
static char *gstr(const struct hwp_emu_follow *f, uint64_t ga)
{
	size_t n = 0, cap = 256;
	char *s = malloc(cap);

	while (s) {
		size_t chunk = 4096 - ((ga + n) & 4095);
		char *nul;

		if (n + chunk + 1 > cap) {
			char *t;

			cap = n + chunk + 1;
			if (cap > MAX_ARG_BYTES + 4096 || !(t = realloc(s, cap)))
				break;
			s = t;
		}
		if (!gread(f, ga + n, s + n, chunk))
			break;
		if ((nul = memchr(s + n, 0, chunk)))
			return s;
		n += chunk;
	}
	free(s);
	return NULL;
}

/* The guest's NULL-terminated array of strings at GA appended to OUT. */
static bool gstrv(const struct hwp_emu_follow *f, uint64_t ga, struct strv *out)
{
	for (size_t i = 0; ga && i < MAX_ARGS; i++) {
		uint64_t p;
		char *s;

		if (!gread(f, ga + 8 * i, &p, sizeof(p)))
			return false;
		if (!p)
			return true;
		if (!(s = gstr(f, p)) || !strv_push(out, s)) {
			free(s);
			return false;
		}
	}
	return ga == 0; /* a NULL array is an empty one (Linux) */
}

enum image { IMAGE_NO, IMAGE_ELF, IMAGE_SCRIPT };

/* What PATH is, as the kernel would run it: an x86-64 ELF executable, a
   script (its interpreter and optional argument into INTERP and ARG), or
   something left to the native syscall. */
static enum image classify(const char *path, char *interp, size_t icap, char *arg, size_t acap)
{
	unsigned char b[256];
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return IMAGE_NO;
	/* privileges the kernel grants at exec (set-user/group-ID bits, file
	   capabilities) would not reach the image under QEMU: such a program
	   (sudo, ping, passwd) runs natively, as before */
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid()) ||
	    getxattr(path, "security.capability", NULL, 0) >= 0)
		return IMAGE_NO;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return IMAGE_NO;
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n >= 64 && !memcmp(b, "\177ELF", 4)) {
		uint16_t type = (uint16_t)(b[16] | b[17] << 8), machine = (uint16_t)(b[18] | b[19] << 8);

		/* ELFCLASS64, little-endian, ET_EXEC or ET_DYN, EM_X86_64 */
		return b[4] == 2 && b[5] == 1 && (type == 2 || type == 3) && machine == 62 ? IMAGE_ELF
											 : IMAGE_NO;
	}
	if (n > 0 && hwp__shebang(b, (size_t)n, interp, icap, arg, acap) == 1)
		return IMAGE_SCRIPT;
	return IMAGE_NO;
}

/* S appended to OUT, with every ',' doubled when ESCAPE (QEMU's option
   syntax for a ',' inside a value). */
static bool append(char **out, size_t *len, size_t *cap, const char *s, bool escape)
{
	for (; *s; s++) {
		if (*len + 3 > *cap) {
			size_t c = *cap ? 2 * *cap : 256;
			char *t = realloc(*out, c);

			if (!t)
				return false;
			*out = t;
			*cap = c;
		}
		if (escape && *s == ',')
			(*out)[(*len)++] = ',';
		(*out)[(*len)++] = *s;
		(*out)[*len] = 0;
	}
	return true;
}

/* The -plugin option for the next image: this plugin, its arguments, and
   the next exec generation. */
static char *plugin_option(const struct hwp_emu_follow *f)
{
	char *out = NULL, gen[32];
	size_t len = 0, cap = 0;
	Dl_info info;

	/* an absolute path: the guest may have changed directory since */
	if (!dladdr((void *)hwp_emu_follow_exec, &info) || !info.dli_fname ||
	    info.dli_fname[0] != '/' || !append(&out, &len, &cap, info.dli_fname, true))
		goto fail;
	for (int i = 0; i < f->nplugin_args; i++) {
		/* the generation is the next one's; the directory the absolute
		   one (the guest may have changed directory since) */
		if (!strncmp(f->plugin_args[i], "gen=", 4) || !strncmp(f->plugin_args[i], "out=", 4))
			continue;
		if (!append(&out, &len, &cap, ",", false) ||
		    !append(&out, &len, &cap, f->plugin_args[i], true))
			goto fail;
	}
	snprintf(gen, sizeof(gen), ",gen=%u", f->gen + 1);
	if (!append(&out, &len, &cap, ",out=", false) || !append(&out, &len, &cap, f->dir, true) ||
	    !append(&out, &len, &cap, gen, false))
		goto fail;
	return out;
fail:
	free(out);
	return NULL;
}

/* The file a descriptor names (/proc/self/fd/N), NULL when it has no path
   (a memfd, a deleted file: the new QEMU could not open it by name). */
static char *fd_path(int64_t fd)
{
	char link[64], buf[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%lld", (long long)fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = 0;
	return stat(buf, &st) == 0 ? strdup(buf) : NULL;
}

/* IMAGE (consumed) as a path the new QEMU can open, NULL when there is
   none: execveat's DIRFD-relative path and AT_EMPTY_PATH (fexecve), and
   /proc/self/fd/N or /dev/fd/N (glibc's fexecve where execveat fails),
   become the file's own path. */
static char *absolute_image(char *image, int64_t dirfd, uint64_t flags)
{
	char *out = image, *dir;
	const char *num = NULL;

	if ((flags & AT_EMPTY_PATH_) && !image[0]) {
		out = fd_path(dirfd);
	} else if (image[0] != '/' && dirfd != AT_FDCWD_) {
		/* no path for the directory: left to the kernel (EBADF, ENOENT) */
		out = (dir = fd_path(dirfd)) ? malloc(strlen(dir) + strlen(image) + 2) : NULL;
		if (out)
			sprintf(out, "%s/%s", dir, image);
		free(dir);
	} else if (!strncmp(image, "/proc/self/fd/", 14)) {
		num = image + 14;
	} else if (!strncmp(image, "/dev/fd/", 8)) {
		num = image + 8;
	}
	if (num) {
		char *end;
		long fd = strtol(num, &end, 10);

		out = *num && !*end ? fd_path(fd) : NULL;
	}
	if (out != image)
		free(image);
	return out;
}

void hwp_emu_follow_exec(const struct hwp_emu_follow *f, int64_t dirfd, uint64_t path,
			 uint64_t argv, uint64_t envp, uint64_t flags)
{
	struct strv gargv = { 0 }, genv = { 0 }, args = { 0 };
	char qemu[PATH_MAX], interp[MAX_SCRIPT_DEPTH][256], sarg[MAX_SCRIPT_DEPTH][256];
	char *image = NULL, *plug = NULL;
	const char *argv0, *run;
	int depth = 0;
	enum image kind;
	sigset_t none, old;
	ssize_t ql;

	if ((flags & ~AT_EMPTY_PATH_) || !(image = gstr(f, path)) ||
	    !(image = absolute_image(image, dirfd, flags)))
		goto out;
	if (!strcmp(image, "/proc/self/exe")) {
		const char *self = qemu_plugin_path_to_binary();

		free(image);
		if (!self || !(image = strdup(self))) {
			free((void *)self);
			image = NULL;
			goto out;
		}
		free((void *)self);
	}
	if (!gstrv(f, argv, &gargv) || !gstrv(f, envp, &genv))
		goto out;
	argv0 = gargv.n ? gargv.v[0] : image;
	/* scripts: argv becomes INTERP [ARG] PATH argv[1..], as the kernel
	   builds it, once per interpreter level */
	run = image;
	while ((kind = classify(run, interp[depth], sizeof(interp[0]), sarg[depth],
				sizeof(sarg[0]))) == IMAGE_SCRIPT) {
		if (++depth == MAX_SCRIPT_DEPTH)
			goto out;
		run = interp[depth - 1];
	}
	if (kind != IMAGE_ELF)
		goto out;
	if ((ql = readlink("/proc/self/exe", qemu, sizeof(qemu) - 1)) <= 0)
		goto out;
	qemu[ql] = 0;
	if (!(plug = plugin_option(f)))
		goto out;
	/* QEMU's own arguments, then the image and its argv: the innermost
	   interpreter first, each level's optional argument and script path */
	if (!strv_push(&args, qemu) || !strv_push(&args, "-plugin") || !strv_push(&args, plug) ||
	    !strv_push(&args, "-0") || !strv_push(&args, (char *)(depth ? interp[depth - 1] : argv0)) ||
	    !strv_push(&args, "--") || !strv_push(&args, (char *)run))
		goto out;
	for (int d = depth; d-- > 0;) {
		if ((sarg[d][0] && !strv_push(&args, sarg[d])) ||
		    !strv_push(&args, (char *)(d ? interp[d - 1] : image)))
			goto out;
	}
	for (size_t i = 1; i < gargv.n; i++)
		if (!strv_push(&args, gargv.v[i]))
			goto out;
	/* QEMU keeps the guest's signal mask to itself; the host's may be
	   anything at this point, and the new QEMU's guest starts with it */
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, &old);
	execve(qemu, args.v, genv.n ? genv.v : (char *[]){ NULL });
	pthread_sigmask(SIG_SETMASK, &old, NULL);
out:
	free(args.v);
	strv_free(&gargv, 0);
	strv_free(&genv, 0);
	free(image);
	free(plug);
}
