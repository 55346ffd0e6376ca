/* SPDX-License-Identifier: MIT */
/*
 * Following execve in the emulated capture: qemu-user performs a guest's
 * execve natively, so the new image would run outside the emulator and
 * unrecorded. Instead the plugin, in its syscall-entry hook, replaces the
 * QEMU process itself with a new QEMU that runs the image the guest asked
 * for, with this plugin and its arguments (and the exec generation one
 * higher): same pid, same file descriptors, the guest's environment, as
 * `perf record -- CMD` follows a process tree.
 */
#ifndef HWPROF_EMU_EXEC_FOLLOW_H
#define HWPROF_EMU_EXEC_FOLLOW_H

#include <stdint.h>

struct hwp_emu_follow {
	uint64_t guest_base; /* host address = guest address + guest_base */
	const char *const *plugin_args; /* the plugin's own key=value arguments */
	int nplugin_args;
	unsigned gen; /* this image's exec generation (0: the first) */
	const char *dir; /* the raw directory, absolute */
};

/* The guest calls execveat(DIRFD, PATH, ARGV, ENVP, FLAGS) (execve: DIRFD
   AT_FDCWD, FLAGS 0; guest pointers). Runs the image under a new QEMU with
   this plugin; returns only when it does not, and then the syscall runs
   natively as before: a path the kernel refuses (it fails there with the
   kernel's errno), an image that is not an x86-64 ELF executable or a
   script for one, one with no path to open it by (a memfd or a deleted
   file exec'd through its descriptor), or one the kernel would give
   privileges (set-user/group-ID, file capabilities) that QEMU would not.
   Not kept across the exec: the guest's signal mask and the signals QEMU
   holds pending for it (the plugin API reaches neither). */
void hwp_emu_follow_exec(const struct hwp_emu_follow *f, int64_t dirfd, uint64_t path,
			 uint64_t argv, uint64_t envp, uint64_t flags);

#endif
