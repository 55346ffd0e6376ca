#!/usr/bin/env python3
"""The README's library examples are the programs in examples/, not copies.

    readme_examples.py [README]          rewrite each example block from its file
    readme_examples.py --check [README]  exit 1 naming each block that differs

A block is the text between the lines
    <!-- example:NAME begin -->
    <!-- example:NAME end -->
and holds examples/NAME.c from its first #include line to its end (the file's
leading comment says how to build it; the README says that in prose), in a
```c fence. A block whose file does not exist yet is left as it is.
"""
import re
import sys
from pathlib import Path

BLOCK = re.compile(r"(<!-- example:([a-z0-9_]+) begin -->\n)(.*?)(<!-- example:\2 end -->)", re.S)


def code_of(path):
    lines = path.read_text().split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("#include")), 0)
    return "\n".join(lines[start:]).rstrip("\n") + "\n"


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    readme = Path(args[0] if args else Path(__file__).resolve().parent.parent / "README.md")
    examples = readme.parent / "examples"
    text = readme.read_text()
    stale = []

    def fill(m):
        path = examples / f"{m.group(2)}.c"
        if not path.exists():
            return m.group(0)
        block = "```c\n" + code_of(path) + "```\n"
        if m.group(3) != block:
            stale.append(m.group(2))
        return m.group(1) + block + m.group(4)

    new = BLOCK.sub(fill, text)
    if check:
        if stale:
            print(f"{readme}: the example blocks {', '.join(stale)} differ from examples/ "
                  f"(scripts/readme_examples.py rewrites them)")
            sys.exit(1)
    elif new != text:
        readme.write_text(new)


if __name__ == "__main__":
    main()
