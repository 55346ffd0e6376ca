#!/usr/bin/env python3
"""Oracles for the DWARF unwinding test (tests/e2e/dwarf_unwind.sh).

usage: unwind_check.py folded PERF_SCRIPT FOLDED KALLSYMS [cut]
       unwind_check.py paths FOLDED MIN_PERCENT
       unwind_check.py cut PERF_SCRIPT FOLDED KALLSYMS STACK_SIZE WARNINGS
       unwind_check.py jit PERF_SCRIPT FOLDED KALLSYMS PERF_MAP
       unwind_check.py short PERF_SCRIPT KALLSYMS
       unwind_check.py loader PERF_SCRIPT FOLDED KALLSYMS MIN_SAMPLES

folded: `hwprof flame --folded --no-inline` against perf script's
callchains (perf 6.1, --no-inline), folded as stack_oracle.py folds them,
stack for stack. One normalization, of names, not of unwinding: a kernel
frame (from the first kernel entry point of a stack on) is its address in
KALLSYMS (the recording machine's /proc/kallsyms; names perf gives user
frames excepted), since perf 6.1 and hwprof name aliases at one address
differently (__x64_sys_getpid and __ia32_sys_getpid,
__x86_indirect_thunk_rax and __pi___x86_indirect_thunk_rax). And one of
unwinding, named where it applies (the PASS line counts it): perf's
libunwind steps out of a function without CFI (crti.o's _fini) by guessing
and goes on at an address in [stack]; such a stack is compared by its
frames inside that address, which must end one of hwprof's stacks; and a
perf stack of vDSO frames alone (no vDSO image in the test's build-id
cache) must end one of hwprof's stacks. With "cut" (real programs: a
frame with large buffers on its stack, such as python3's _Py_wreadlink,
can put its caller's return address past the end of the copy), cut's two
normalizations below are made as well, and counted.

paths: the call structure of tests/fixtures/dwarf_unwind.c, from its source:
every user stack of `hwprof flame --folded --no-inline` whose innermost
user frame is leaf() must be one of the four ways main reaches it,
  main;a;b;leaf                     (two calls of b per a)
  main;rec x25;leaf                 (rec(24) recurses down to depth 0)
  main;sorter;<libc's qsort...>;by_value;leaf
  main;raise;<libc...>;on_signal;leaf   (through the signal frame)
below _start and the two libc frames that call main; kernel frames after
the user part are ignored. At least MIN_PERCENT of those samples must
match (100 where CFI describes every frame; a frame-pointer walk loses
the caller of a sample taken in a prologue), and each of the four must
be seen. A sample whose innermost user frame is elsewhere is not judged.

cut: a recording whose stack copy is too small for the recursion (perf
record --call-graph dwarf,STACK_SIZE): `hwprof flame --folded --no-inline`
against perf script's callchains (perf 6.1, --no-inline), folded as
stack_oracle.py folds them, with two normalizations, each a difference of
perf 6.1's libunwind-based unwinder, not of the stacks:
  1. perf ends a stack cut by the end of the copy with a frame at address
     0xffffffffffffffff (libunwind's failed read of the return address, 0,
     minus one): that frame is dropped.
  2. perf's access_mem() refuses the copy's last 8 bytes (it tests
     addr + 8 >= end), so where a return address sits in that word perf's
     stack ends one frame earlier: a hwprof stack whose outermost frame,
     removed, gives a stack perf has (and this one perf has not) is counted
     as that stack.
Then the stacks must be equal, and the count WARNINGS (from hwprof's
warning: stacks that ran past their copy) must be within 1% of the samples
of perf's stacks that do not reach _start.

jit: a JIT's recording (Node.js --perf-basic-prof, PERF_MAP its
/tmp/perf-PID.map): `hwprof flame --folded --no-inline` against perf
script's callchains as in cut (its two normalizations, no count of
warnings), and one more, a difference of unwinders again: perf 6.1's
libunwind finds no unwind information for code no file maps and ends the
stack at the first such frame (itself kept), where hwprof (libdwfl) walks
on by frame pointers: a hwprof stack is cut after its innermost frame named
in PERF_MAP.
loader: a recording under LD_BIND_NOT=1 (tests/fixtures/lazy_binding.c):
the stacks whose innermost user frame is the dynamic loader's (a name perf
gives a frame in ld-linux*.so / ld.so), of `hwprof flame --folded
--no-inline` and of perf script's callchains (-F period,ip,sym,symoff,dso,
--no-inline), kernel frames by address as in folded, must be equal. Says
how many of perf's samples lie under the lazy-binding trampoline
(_dl_runtime_resolve*) and how many at the first instruction of the
function it calls (_dl_fixup, whose CFI there leaves rbx unspecified, the
register the trampoline's frame is found from); SKIP when fewer than
MIN_SAMPLES lie under the trampoline or none at that entry.
Prints PASS/FAIL lines named by $CMP_NAME.
"""
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stack_oracle  # noqa: E402

name = os.environ.get("CMP_NAME", "unwind_check")
KERNEL = re.compile(r"^(asm_|entry_SYSCALL|exc_|sysvec_|irqentry_|__sysvec_|common_interrupt|ret_from_)")


def folded(path):
    got = Counter()
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        got[stack] += int(n)
    return got


def kallsyms(path, script):
    """Kernel symbol -> address, but for names perf also gives user frames."""
    user = user_names(script)
    addr = {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) >= 3 and f[2] not in user:
            addr.setdefault(f[2], f[0])
    return addr


def user_names(script):
    """Symbols perf script names in user space (any dso but the kernel's)."""
    names = set()
    for line in open(script, errors="replace"):
        m = re.match(r"\t\s*[0-9a-f]+ (.*?) \((.*)\)$", line.rstrip("\n"))
        if m and not m.group(2).startswith("[kernel"):
            names.add(re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)))
    return names


def kernel_by_address(stack, ksyms):
    """STACK (callers first) with its kernel frames named by address."""
    return ";".join(("k@" + ksyms[f]) if f in ksyms else f for f in stack.split(";"))


def perf_stacks(script, ksyms, cut_frames=False):
    """perf script's stacks, callers first, counted; how many do not reach
    _start (after dropping a cut stack's 0xffffffffffffffff frame when
    CUT_FRAMES); and how many such frames were dropped."""
    want, short, dropped = Counter(), 0, 0
    for fr in stack_oracle.samples(script):
        if not fr:
            continue
        if cut_frames and fr[-1] == "0xffffffffffffffff":
            fr = fr[:-1]
            dropped += 1
        user = user_part(list(reversed(fr)))
        if user and user[0] != "_start":
            short += 1
        want[kernel_by_address(";".join(reversed(fr)), ksyms)] += 1
    return want, short, dropped


def compare(want, got):
    diff = [(s, want[s], got[s]) for s in set(want) | set(got) if want[s] != got[s]]
    if not diff:
        return None
    diff.sort(key=lambda d: -abs(d[1] - d[2]))
    det = "; ".join(f"{s[-300:]}: perf {a} hwprof {b}" for s, a, b in diff[:3])
    return f"{len(diff)} stacks differ: {det}"


def stack_garbage(want, got):
    """perf 6.1's libunwind steps out of a function without CFI (crti.o's
    _fini) by guessing, reads a wrong return address and goes on at an
    address in [stack]: such a perf stack is compared by its frames inside
    the last [stack] frame, which must end one of hwprof's stacks that perf
    does not have. A perf stack of vDSO frames alone (perf finds no vDSO
    image in the test's empty build-id cache, so no CFI for it) is compared
    the same way, whole. Returns how many samples were compared so, or
    None when one has no such hwprof stack."""
    n_done = 0
    vdso_only = [s for s in want if all(f.startswith("[vdso]") for f in s.split(";"))]
    for stack in [s for s in want if "[stack]" in s] + vdso_only:
        frames = stack.split(";")
        if stack in vdso_only:
            inner = ";" + stack  # perf did not get out of the vDSO at all
        else:
            last = max(i for i, f in enumerate(frames) if f.startswith("[stack]"))
            inner = ";" + ";".join(frames[last + 1:])
        n = want.pop(stack)
        for cand in sorted(got):
            if n and cand.endswith(inner) and cand not in want:
                take = min(n, got[cand])
                got[cand] -= take
                n -= take
                n_done += take
                if not got[cand]:
                    del got[cand]
        if n:
            return None
    return n_done


def equal(script, mine, ks, cut_ok=False):
    ksyms = kallsyms(ks, script)
    want, _, n_cut = perf_stacks(script, ksyms, cut_ok)
    got = Counter()
    for stack, n in folded(mine).items():
        got[kernel_by_address(stack, ksyms)] += n
    if cut_ok:
        got = one_frame_more(want, got)
    garbage = stack_garbage(want, got)
    if garbage is None:
        print(f"FAIL {name}: a perf stack that goes on in [stack] matches no hwprof stack")
        return 1
    bad = compare(want, got)
    if bad:
        print(f"FAIL {name}: {bad}")
        return 1
    note = f", {garbage} where perf's stack goes on in [stack] or stops in the vDSO" if garbage else ""
    if n_cut:
        note += f", {n_cut} cut by the end of the stack copy as in cut"
    print(f"PASS {name} ({len(want)} distinct stacks, {sum(want.values())} samples{note})")
    return 0


def user_part(frames):
    """The frames before the first kernel entry point (callers first)."""
    for i, f in enumerate(frames):
        if KERNEL.match(f):
            return frames[:i]
    return frames


def paths(path, min_percent):
    base = r"^_start;[^;]+;[^;]+;main;"
    ways = {
        "a": re.compile(base + r"a;b;leaf$"),
        "rec": re.compile(base + r"(rec;){25}leaf$"),
        "qsort": re.compile(base + r"sorter;([^;]+;)+by_value;leaf$"),
        "signal": re.compile(base + r"raise;([^;]+;)+on_signal;leaf$"),
    }
    seen, total, bad = Counter(), 0, Counter()
    for stack, n in folded(path).items():
        user = user_part(stack.split(";"))
        if not user or user[-1] != "leaf":
            continue
        total += n
        s = ";".join(user)
        for way, rx in ways.items():
            if rx.match(s):
                seen[way] += n
                break
        else:
            bad[s] += n
    ok = sum(seen.values())
    missing = [w for w in ways if not seen[w]]
    if total and 100.0 * ok / total >= min_percent and not missing:
        print(f"PASS {name} ({ok} of {total} samples in leaf on the source's paths: {dict(seen)})")
        return 0
    worst = "; ".join(f"{s[-100:]} x{n}" for s, n in bad.most_common(2))
    print(f"FAIL {name}: {ok} of {total} samples in leaf on the source's paths (want {min_percent}%), "
          f"none on {missing}; others: {worst}")
    return 1


def jit_names(path):
    """The symbol names of a perf map ("START SIZE name" lines)."""
    names = set()
    for line in open(path, errors="replace"):
        f = line.rstrip("\n").split(" ", 2)
        if len(f) == 3:
            names.add(f[2])
    return names


def cut_at_jit(stack, jit):
    """STACK (callers first) from its innermost frame named in JIT on."""
    fr = stack.split(";")
    for i in range(len(fr) - 1, -1, -1):
        if fr[i] in jit:
            return ";".join(fr[i:])
    return stack


def one_frame_more(want, got):
    """cut's normalization 2: a hwprof stack perf has not whose outermost
    frame, removed, gives a stack perf has more of, counted as that one."""
    for stack in list(got):
        shorter = stack.partition(";")[2]
        if stack not in want and shorter and want[shorter] > got[shorter]:
            n = min(got[stack], want[shorter] - got[shorter])
            got[stack] -= n
            got[shorter] += n
    return +got


def cut(script, mine, ks, size, warned, jit=None):
    ksyms = kallsyms(ks, script)
    want, cut_perf, _ = perf_stacks(script, ksyms, True)
    got = Counter()
    for stack, n in folded(mine).items():
        got[kernel_by_address(cut_at_jit(stack, jit) if jit else stack, ksyms)] += n
    got = one_frame_more(want, got)
    total = sum(want.values())
    bad = compare(want, got)
    if bad:
        print(f"FAIL {name}: {bad}")
        return 1
    if jit is not None:
        print(f"PASS {name} ({len(want)} distinct stacks, {total} samples; those of hwprof cut at their "
              f"innermost JIT frame as perf's are)")
        return 0
    if abs(cut_perf - int(warned)) > total / 100:
        print(f"FAIL {name}: hwprof says {warned} stacks ran past their {size}-byte copy, "
              f"perf's {cut_perf} of {total} stacks do not reach _start")
        return 1
    print(f"PASS {name} ({len(want)} distinct stacks, {total} samples; {warned} said to run past "
          f"their {size}-byte copy, perf cut {cut_perf})")
    return 0


LOADER = re.compile(r"/ld(-linux[^/]*)?(-[0-9.]+)?\.so(\.[0-9]+)*$")
FRAME = re.compile(r"\t\s*([0-9a-f]+) (.*?) \(((?:[^()]|\([^()]*\))*)\)$")


def loader_frames(script):
    """The names perf gives frames in the dynamic loader; how many samples
    have the lazy-binding trampoline as a user frame, and how many of
    those are at the first instruction of the function it calls."""
    names, lazy, entry, cur = set(), 0, 0, []

    def end(fr):
        nonlocal lazy, entry
        user = [f for f in fr if not f[2].startswith("[kernel")]
        if any(f[0].startswith("_dl_runtime_resolve") for f in user):
            lazy += 1
            entry += len(user) > 1 and user[1][0].startswith("_dl_runtime_resolve") and user[0][1] == 0

    for line in open(script, errors="replace"):
        m = FRAME.match(line.rstrip("\n"))
        if not m:
            if cur:
                end(cur)
            cur = []
            continue
        sym, _, off = m.group(2).rpartition("+0x")
        if not sym:
            sym, off = m.group(2), "-1"
        cur.append((sym, int(off, 16), m.group(3)))
        if LOADER.search(m.group(3)):
            names.add(sym)
    if cur:
        end(cur)
    return names, lazy, entry


def loader(script, mine, ks, min_samples):
    ksyms = kallsyms(ks, script)
    ld, lazy, entry = loader_frames(script)

    def keep(frames):  # callers first
        user = user_part(frames)
        return bool(user) and user[-1] in ld

    want, got = Counter(), Counter()
    for fr in stack_oracle.samples(script):
        c = list(reversed(fr))
        if fr and keep(c):
            want[kernel_by_address(";".join(c), ksyms)] += 1
    for stack, n in folded(mine).items():
        if keep(stack.split(";")):
            got[kernel_by_address(stack, ksyms)] += n
    if lazy < min_samples or not entry:
        print(f"SKIP {name}: {lazy} of perf's samples under the lazy-binding trampoline (want "
              f"{min_samples}), {entry} at the entry of the function it calls (want 1)")
        return 0
    bad = compare(want, got)
    if bad:
        print(f"FAIL {name}: stacks whose innermost user frame is ld.so's: {bad}")
        return 1
    print(f"PASS {name} ({sum(want.values())} samples with an ld.so innermost frame, {len(want)} "
          f"distinct stacks; {lazy} under the lazy-binding trampoline, {entry} at its callee's entry)")
    return 0


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "folded":
        sys.exit(equal(a[2], a[3], a[4], a[5:] == ["cut"]))
    if a[1] == "short":  # how many of perf's stacks do not reach _start
        print(perf_stacks(a[2], kallsyms(a[3], a[2]))[1])
        sys.exit(0)
    if a[1] == "paths":
        sys.exit(paths(a[2], float(a[3])))
    if a[1] == "loader":
        sys.exit(loader(a[2], a[3], a[4], int(a[5])))
    if a[1] == "jit":
        sys.exit(cut(a[2], a[3], a[4], 0, 0, jit_names(a[5])))
    sys.exit(cut(a[2], a[3], a[4], a[5], a[6]))
