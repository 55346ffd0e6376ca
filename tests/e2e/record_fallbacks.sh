#!/bin/bash
# perf's open fallbacks in hwprof record, which real hardware and older
# kernels trigger (a PMU without PEBS depth :ppp, a kernel without
# read_format LOST, perf_event_paranoid refusing kernel samples), forced
# here with an LD_PRELOAD shim that makes perf_event_open refuse what such
# a machine refuses. Each fallback must be taken, said on stderr, and show
# in the attr written to perf.data.
set -u
HWPROF=${HWPROF:-build/hwprof}
if ! command -v gcc >/dev/null 2>&1; then
	echo "PLAN 1"
	echo "SKIP record_fallbacks: gcc not installed"
	exit 0
fi
echo "PLAN 4"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

cat >shim.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* perf_event_open as a machine that refuses some attrs would answer */
long syscall(long n, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (n == SYS_perf_event_open) {
		const unsigned char *attr = (const unsigned char *)a[0];
		uint64_t flags, rf;
		const char *maxp = getenv("PEO_MAX_PRECISE");

		memcpy(&rf, attr + 32, 8);
		memcpy(&flags, attr + 40, 8);
		if (maxp && ((flags >> 15) & 3) > (uint64_t)atoi(maxp)) {
			errno = EOPNOTSUPP;
			return -1;
		}
		if (getenv("PEO_NO_LOST") && (rf & 16)) {
			errno = EINVAL;
			return -1;
		}
		if (getenv("PEO_EACCES_KERNEL") && !(flags & (1u << 5))) {
			errno = EACCES;
			return -1;
		}
	}
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
EOF
cat >work.c <<'EOF'
static volatile unsigned long sink;
int main(void)
{
	for (unsigned long i = 0; i < 30000000UL; i++)
		sink += i;
	return 0;
}
EOF
if ! gcc -shared -fPIC -O1 -o shim.so shim.c -ldl || ! gcc -O1 -o work work.c; then
	echo "FAIL record_fallbacks: cannot build the shim"
	exit 0
fi
# the ASan build wants its runtime first; the shim only wraps syscall()
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

attr_json() { "$HWPROF" info --json -i "$1" | python3 -c '
import json, sys
e = json.load(sys.stdin)["events"][0]
print(e["name"], e["precise_ip"], ",".join(e["flags"]), e["read_format"])'; }

# 1. precise_ip refused above 1: :ppp lowered to 1, said once
if PEO_MAX_PRECISE=1 LD_PRELOAD=$PWD/shim.so "$HWPROF" record -e cpu-clock:ppp -o p.data -- ./work \
	>out 2>err && grep -q "^hwprof: warning: cpu-clock:ppp: precise_ip 3 not supported (Operation not supported): recorded with precise_ip 1$" err &&
	[ "$(attr_json p.data | cut -d' ' -f2)" = 1 ]; then
	echo "PASS record_fallback_precise (3 -> 1, said)"
else
	echo "FAIL record_fallback_precise: $(cat err) / $(attr_json p.data 2>&1)"
fi

# 2. a kernel without read_format LOST (< 6.0): dropped, as perf does
if PEO_NO_LOST=1 LD_PRELOAD=$PWD/shim.so "$HWPROF" record -e cpu-clock -o l.data -- ./work \
	>out 2>err && grep -q "refuses read_format LOST" err &&
	[ "$(attr_json l.data | cut -d' ' -f4)" = 0x4 ]; then
	echo "PASS record_fallback_missing_feature (read_format ID only)"
else
	echo "FAIL record_fallback_missing_feature: $(cat err) / $(attr_json l.data 2>&1)"
fi

# 3. kernel samples refused (perf_event_paranoid >= 2): :u, as perf does
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 0)
if [ "$par" -gt 1 ]; then
	if PEO_EACCES_KERNEL=1 LD_PRELOAD=$PWD/shim.so "$HWPROF" record -e cpu-clock -o u.data -- ./work \
		>out 2>err && grep -q "falls back to excluding kernel" err &&
		attr_json u.data | grep -q "^cpu-clock:u 0 .*exclude_kernel.*exclude_hv"; then
		echo "PASS record_fallback_exclude_kernel (cpu-clock:u)"
	else
		echo "FAIL record_fallback_exclude_kernel: $(cat err) / $(attr_json u.data 2>&1)"
	fi
else
	echo "SKIP record_fallback_exclude_kernel: perf_event_paranoid=$par allows kernel samples"
fi

# 4. kernel samples refused for a kernel-only event (perf: no :u fallback
# when the event excludes user space): one line naming the sysctl
if PEO_EACCES_KERNEL=1 LD_PRELOAD=$PWD/shim.so \
	"$HWPROF" record -e cpu-clock:k -o x.data -- ./work >out 2>err; then
	echo "FAIL record_fallback_exhausted: recorded although every open is refused"
elif [ "$(wc -l <err)" -eq 1 ] &&
	grep -q "^hwprof: record: cpu-clock:k: permission denied: kernel.perf_event_paranoid=" err &&
	[ ! -e x.data ]; then
	echo "PASS record_fallback_exhausted (one line)"
else
	echo "FAIL record_fallback_exhausted: $(cat err)"
fi
