#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a library example (examples/*.c) must print, from the hwprof CLI.

    example_expect.py --inputs EXAMPLE.c          how many recordings it takes
    example_expect.py EXAMPLE.c HWPROF DATA...    its expected output

An example says it in its leading comment, one line per output line:

    inputs: 2
    expect: hwprof probs --json | hottest: {symbol} {taken_percent:.2f}%

"inputs: N": it runs on N recordings, given as its arguments (default 1).
"expect: hwprof ARGS | FORMAT": the next line of its output is the first row
of `hwprof ARGS -i DATA...` (a --json command, ARGS as a shell reads them,
given the recordings) written by FORMAT, a Python format string over the
row's fields; "| FORMAT || TEXT": TEXT when the command gives no row. An example without an expect line is an error: every example is
checked (tests/tools/examples_check.sh).
"""
import json
import re
import subprocess
import sys


def fail(msg):
    sys.exit(f"example_expect: {msg}")


def spec(path):
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    head = re.match(r"\s*(?:/\*.*?\*/\s*)*", text, re.S).group()
    inputs, expects = 1, []
    for line in head.splitlines():
        line = re.sub(r"^\s*(/\*+|\*)\s?", "", line)
        m = re.match(r"(inputs|expect):\s*(.*?)\s*(\*/)?$", line)
        if not m:
            continue
        if m.group(1) == "inputs":
            if not m.group(2).isdigit() or int(m.group(2)) < 1:
                fail(f"{path}: 'inputs: {m.group(2)}' is not a count")
            inputs = int(m.group(2))
        else:
            cmd, sep, fmt = m.group(2).partition(" | ")
            if not sep or not cmd.startswith("hwprof "):
                fail(f"{path}: 'expect: {m.group(2)}' is not 'hwprof ARGS | FORMAT'")
            fmt, _, empty = fmt.partition(" || ")
            expects.append((cmd[len("hwprof "):], fmt, empty or None))
    if not expects:
        fail(f"{path}: no 'expect: hwprof ARGS | FORMAT' line in its leading comment: "
             "say what it prints (tests/tools/example_expect.py)")
    return inputs, expects


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--inputs":
        print(spec(sys.argv[2])[0])
        return
    if len(sys.argv) < 4:
        fail("usage: example_expect.py [--inputs] EXAMPLE.c [HWPROF DATA...]")
    path, hwprof, data = sys.argv[1], sys.argv[2], sys.argv[3:]
    _, expects = spec(path)
    for args, fmt, empty in expects:
        inputs = " ".join(f'-i "${i + 1}"' for i in range(len(data)))
        r = subprocess.run(["bash", "-c", f'exec "$HWPROF_BIN" {args} {inputs}', "example", *data],
                           env={"HWPROF_BIN": hwprof, "PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True)
        if r.returncode:
            fail(f"hwprof {args}: exited {r.returncode}: {r.stderr.strip()[:200]}")
        try:
            rows = json.loads(r.stdout)
        except ValueError as e:
            fail(f"hwprof {args}: not JSON ({e})")
        if not rows and empty is not None:
            print(empty)
            continue
        if not rows:
            fail(f"hwprof {args}: no rows (and no '|| TEXT' for that)")
        try:
            print(fmt.format(**rows[0]))
        except (KeyError, ValueError) as e:
            fail(f"{path}: '{fmt}': {e!r} (the row has {', '.join(rows[0])})")


if __name__ == "__main__":
    main()
