#!/usr/bin/env python3
"""Man pages from hwprof's own --help texts and docs/, bash completion from its option tables.

    helpdoc.py man HWPROF OUTDIR [DOCS]  hwprof.1 and hwprof-COMMAND.1 for every command,
                                         from DOCS/hwprof*.md (default: docs/) and --help
    helpdoc.py bash HWPROF OUTFILE       a bash completion script
    helpdoc.py help DOCS OUT.c           the description each `hwprof COMMAND --help`
                                         prints, from the help block of DOCS/hwprof-COMMAND.md

The bash completion reads each command's option table (hwprof COMMAND
--list-options: names, argument, values). For the man pages the --help
texts (made from the same tables) are the source of options: a usage line (and its indented
continuation lines), paragraphs, option lines "  -x, --long ARG   text" with
indented continuation lines, and in `hwprof --help` a "commands:" list. The
manuals' prose is docs/hwprof-COMMAND.md (see docs/README.md).
"""
import re
import subprocess
import sys
from pathlib import Path

NAME_SUMMARY = "branch records and precise samples from Linux perf.data"


def help_text(hwprof, *args):
    return subprocess.run([hwprof, *args, "--help"], check=True, capture_output=True,
                          text=True).stdout


def paragraphs(text):
    paras, cur = [], []
    for line in text.rstrip("\n").split("\n"):
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return paras


OPTION_LINE = re.compile(r"^ {1,8}-")


def parse_options(lines):
    """[(spec, text)] from option lines; continuation lines are indented deeper."""
    cols = []
    for line in lines:
        m = re.match(r"^( +-\S.*? {2,})\S", line)
        if OPTION_LINE.match(line) and m:
            cols.append(len(m.group(1)))
    column = max(set(cols), key=cols.count) if cols else 0
    opts = []
    for line in lines:
        if not OPTION_LINE.match(line):
            if opts:  # a continuation line
                spec, text = opts[-1]
                opts[-1] = (spec, (text + " " + line.strip()).strip())
            continue
        m = re.match(r"^ +(-\S.*?) {2,}(\S.*)$", line)
        if m:
            opts.append((m.group(1), m.group(2)))
        elif column and len(line) > column and line[column - 1] == " " and line[column] != " ":
            opts.append((line[:column].strip(), line[column:].strip()))
        else:
            opts.append((line.strip(), ""))
    return opts


def parse(text):
    """{'usage', 'text': [para], 'options': [(spec, text)], 'lists': [(title, [(name, text)])],
    'exit': para or None}"""
    paras = paragraphs(text)
    usage = " ".join(l.strip() for l in paras[0])
    if not usage.startswith("usage: "):
        raise SystemExit(f"helpdoc: help text does not start with 'usage: ': {usage!r}")
    doc = {"usage": usage[len("usage: "):], "text": [], "options": [], "lists": [], "exit": None}
    for p in paras[1:]:
        if OPTION_LINE.match(p[0]):
            doc["options"] += parse_options(p)
        elif p[0].endswith(":") and not p[0].startswith(" ") and len(p) > 1:
            items = [re.match(r"^\s+(\S+)\s+(.*)$", l).groups() for l in p[1:]]
            doc["lists"].append((p[0][:-1], items))
        elif p[0].startswith("Exit status:"):
            doc["exit"] = [p[0][len("Exit status:"):].strip()] + p[1:]
        else:
            doc["text"].append(p)
    return doc


def option_names(spec):
    """'-i, --input FILE' -> (['-i', '--input'], 'FILE')"""
    names, arg = [], ""
    for alt in spec.split(", "):
        words = alt.split(" ", 1)
        if words[0].startswith("-"):
            names.append(words[0])
            if len(words) > 1:
                arg = words[1].strip()
    return names, arg


# ---- man ----
#
# A page hwprof-CMD.1 is made of two sources, each written once:
#  - docs/hwprof-CMD.md, the manual's prose (description, sections, examples),
#    in the Markdown subset md_to_roff() converts;
#  - `hwprof CMD --help`, generated from the command's option table: the
#    synopsis (its usage line), OPTIONS, lists such as hwprof's commands, and
#    EXIT STATUS.
# The generated sections go where the page has the line "<!-- options -->",
# else after its first part (DESCRIPTION). NAME is the command's summary from
# `hwprof --help`; SEE ALSO names hwprof(1) and every command the page mentions.

OPTIONS_MARKER = "<!-- options -->"


def esc(s):
    """Text for roff: backslashes and hyphens escaped, non-ASCII as \\[uXXXX]
    (the input stays ASCII, so no preprocessor has to guess its encoding)."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    s = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in s)
    return s


def line_start(s):
    """A roff text line must not start with a control character."""
    return "\\&" + s if s[:1] in (".", "'") else s


def esc_code(s):
    # Long code spans (paths, JSON) get break points after , / and = so that
    # filled text can wrap them instead of overrunning the line.
    out = esc(s)
    if len(s) > 24:
        for c in (",", "/", "="):
            out = out.replace(c, c + "\\:")
    return out


INLINE = re.compile(
    r"(`+)(.+?)\1"                                   # code span
    r"|\*\*(.+?)\*\*"                                # bold
    r"|(?<![\w*\\])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])"  # italic
    r"|\[([^\]]+)\]\(([^)\s]+)\)"                    # link
    r"|<(https?://[^>]+)>", re.S)                    # bare URL


def inline(text, font="R"):
    """Markdown inline markup -> roff, restoring FONT after each change."""
    out, pos = [], 0
    for m in INLINE.finditer(text):
        out.append(esc(text[pos:m.start()].replace("\\|", "|")))
        pos = m.end()
        if m.group(1):
            out.append(f"\\fB{esc_code(' '.join(m.group(2).split()))}\\f{font}")
        elif m.group(3) is not None:
            out.append(f"\\fB{inline(m.group(3), 'B')}\\f{font}")
        elif m.group(4) is not None:
            out.append(f"\\fI{inline(m.group(4), 'I')}\\f{font}")
        elif m.group(5) is not None:
            target = m.group(6)
            page = re.fullmatch(r"(?:\.\./docs/|docs/)?(hwprof(?:-[a-z0-9]+)?)\.md", target)
            out.append(inline(m.group(5), font))
            if page and page.group(1) not in m.group(5):
                out.append(f" (\\fB{esc(page.group(1))}\\fR(1))" if font == "R" else "")
            elif target.startswith("http"):
                out.append(f" <{esc_code(target)}>")
        else:
            out.append(f"<{esc_code(m.group(7))}>")
    out.append(esc(text[pos:].replace("\\|", "|")))
    return "".join(out)


def split_row(line):
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|")) if line.strip() != "|" else []
    return [c.strip() for c in cells]


LIST_ITEM = re.compile(r"^(?:[-*]|(\d+)\.) +(.*)$")


def md_blocks(text):
    """Markdown -> [(kind, ...)]: ('h', level, text), ('p', text), ('code', [lines]),
    ('list', ordered, [text]), ('table', header, [rows]), ('options',)."""
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s:
            i += 1
        elif s.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            indent = len(line) - len(line.lstrip())
            # a fence indented inside a list item: its lines lose that indent only
            blocks.append(("code", [l[indent:] if not indent or l[:indent].isspace() else l.lstrip()
                                    for l in lines[i + 1:j]]))
            i = j + 1
        elif s == OPTIONS_MARKER:
            blocks.append(("options",))
            i += 1
        elif s.startswith("<!--"):
            while i < len(lines) and "-->" not in lines[i]:
                i += 1
            i += 1
        elif re.match(r"^#{1,3} ", line):
            level = len(line) - len(line.lstrip("#"))
            blocks.append(("h", level, line[level:].strip()))
            i += 1
        elif s.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                if not re.fullmatch(r"\|?[\s:|-]+\|?", lines[i].strip()):
                    rows.append(split_row(lines[i]))
                i += 1
            blocks.append(("table", rows[0], rows[1:]))
        elif LIST_ITEM.match(line):
            ordered, items = LIST_ITEM.match(line).group(1) is not None, []
            while i < len(lines):
                m = LIST_ITEM.match(lines[i])
                if m:
                    items.append(m.group(2))
                elif lines[i].startswith(" ") and lines[i].strip() and items:
                    items[-1] += "\n" + lines[i].strip()
                else:
                    break
                i += 1
            blocks.append(("list", ordered, items))
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not re.match(
                    r"^(#{1,3} |```|\||<!--)", lines[i].strip()) and not (
                    para and LIST_ITEM.match(lines[i])):
                para.append(lines[i].strip())
                i += 1
            blocks.append(("p", "\n".join(para)))
    return blocks


def roff_text(text):
    """A paragraph: inline markup may span its lines (a code span broken by the
    line wrap), so it is converted whole, then each line guarded."""
    return "\n".join(line_start(l.strip()) for l in inline(text).split("\n"))


def heading(text):
    """.SH text: upper case outside code spans."""
    parts = re.split(r"(`[^`]+`)", text)
    return inline("".join(p if p.startswith("`") else p.upper() for p in parts), "B")


def md_to_roff(blocks, generated):
    """Roff for the page's blocks (the title dropped); GENERATED (roff of the
    --help sections) goes at the options marker, else after the first part."""
    out, placed, section = [], False, False
    if not any(b[0] == "options" for b in blocks):
        at = next((k for k, b in enumerate(blocks) if b[0] == "h" and b[1] == 2), len(blocks))
        blocks = blocks[:at] + [("options",)] + blocks[at:]
    for b in blocks:
        kind = b[0]
        if kind != "h" and not section and kind != "options":
            out.append(".SH DESCRIPTION")
            section = True
        if kind == "h":
            if b[1] == 1:
                continue
            # headings are bold: a code span in one returns to bold
            out.append(".SH " + heading(b[2]) if b[1] == 2 else ".SS " + inline(b[2], "B"))
            section = True
        elif kind == "options":
            if not placed:
                out += generated
                placed = True
        elif kind == "p":
            out += [".PP", roff_text(b[1])]
        elif kind == "code":
            out += [".PP", ".RS 4", ".nf"] + [line_start(esc(l)) for l in b[1]] + [".fi", ".RE"]
        elif kind == "list":
            for n, item in enumerate(b[2], 1):
                out += [f".IP {n}. 4" if b[1] else ".IP \\(bu 2", roff_text(item)]
            out.append(".PP")
        elif kind == "table":
            header, rows = b[1], b[2]
            for row in rows:
                out += [".TP", line_start(inline(row[0]))]
                if len(header) == 2:
                    out.append(roff_text(row[1] if len(row) > 1 else ""))
                else:
                    lines = [f"\\fI{inline(h, 'I')}\\fR: {inline(c)}"
                             for h, c in zip(header[1:], row[1:]) if c]
                    out.append("\n.br\n".join(line_start(l) for l in lines))
    return out


def roff_spec(spec):
    out = []
    for alt in spec.split(", "):
        words = alt.split(" ", 1)
        s = f"\\fB{esc(words[0])}\\fR" if words[0].startswith("-") else f"\\fI{esc(words[0])}\\fR"
        if len(words) > 1:
            s += f" \\fI{esc(words[1].strip())}\\fR"
        out.append(s)
    return ", ".join(out)


def roff_synopsis(usage):
    words = usage.split()
    n = 0
    while n < len(words) and re.fullmatch(r"[a-z][a-z0-9_-]*", words[n]):
        n += 1
    return f".B {esc(' '.join(words[:n]))}\n{line_start(esc(' '.join(words[n:])))}" \
        if n < len(words) else f".B {esc(' '.join(words))}"


def help_sections(doc):
    """The sections generated from a --help text: its lists, OPTIONS, EXIT STATUS."""
    out = []
    for list_title, items in doc["lists"]:
        out.append(f".SH {esc(list_title.upper())}")
        for item, text in items:
            out += [".TP", f".BR hwprof\\-{esc(item)} (1)", line_start(esc(text))]
    if doc["options"]:
        out.append(".SH OPTIONS")
        for spec, text in doc["options"]:
            out += [".TP", roff_spec(spec)] + ([line_start(esc(text))] if text else [])
    if doc["exit"]:
        out += [".SH EXIT STATUS", "\n".join(line_start(esc(l.strip())) for l in doc["exit"])]
    return out


def man_page(page, summary, doc, md, version, see_also):
    blocks = md_blocks(md)
    title = blocks[0] if blocks else None
    if not title or title[0] != "h" or title[1] != 1 or title[2] != f"{page}(1)":
        raise SystemExit(f"helpdoc: docs/{page}.md: the first line must be '# {page}(1)'")
    out = [f'.TH {esc(page.upper())} 1 "" "hwprof {esc(version)}" "User Commands"',
           ".nh", ".ad l", ".SH NAME", f"{esc(page)} \\- {esc(summary)}",
           ".SH SYNOPSIS", roff_synopsis(doc["usage"])]
    out += md_to_roff(blocks, help_sections(doc))
    out.append(".SH SEE ALSO")
    out.append(",\n".join(f".BR {esc(p)} (1)" for p in see_also))
    return "\n".join(out) + "\n"


def commands(main_doc):
    for title, items in main_doc["lists"]:
        if title == "commands":
            return items
    raise SystemExit("helpdoc: no 'commands:' list in hwprof --help")


def mentioned(md, pages, page):
    """The other hwprof pages a manual mentions ('hwprof probs', hwprof-probs.md)."""
    found = set(re.findall(r"hwprof[ -]([a-z0-9]+)", md))
    return [p for p in pages if p != page and p.split("-", 1)[1] in found]


def write_man(hwprof, outdir, docs):
    outdir, docs = Path(outdir), Path(docs)
    outdir.mkdir(parents=True, exist_ok=True)
    for old in outdir.glob("*.1"):
        old.unlink()
    version = subprocess.run([hwprof, "--version"], check=True, capture_output=True,
                             text=True).stdout.split()[-1]

    def source(page):
        path = docs / f"{page}.md"
        if not path.exists():
            raise SystemExit(f"helpdoc: {path}: missing: every command's manual is written there")
        return path.read_text()

    main = parse(help_text(hwprof))
    cmds = commands(main)
    pages = [f"hwprof-{c}" for c, _ in cmds]
    (outdir / "hwprof.1").write_text(man_page("hwprof", NAME_SUMMARY, main, source("hwprof"),
                                              version, pages + ["perf"]))
    for cmd, summary in cmds:
        page = f"hwprof-{cmd}"
        md = source(page)
        (outdir / f"{page}.1").write_text(man_page(page, summary, parse(help_text(hwprof, cmd)),
                                                   md, version,
                                                   ["hwprof"] + mentioned(md, pages, page)))


# ---- bash ----

BASH_HEAD = r'''# bash completion for hwprof: generated from its option tables
# (hwprof COMMAND --list-options) by scripts/helpdoc.py. Completes commands, options, file and directory
# arguments, comma-separated value lists (branches --sort), and the program
# after "--".

_hwprof_values() { # CUR WORDS: complete the last item of a comma-separated list
	local pre= last=$1
	case $1 in *,*) pre=${1%,*},; last=${1##*,} ;; esac
	COMPREPLY=($(compgen -P "$pre" -W "$2" -- "$last"))
}

_hwprof() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i
	local opts= fileopts= diropts= argopts=
	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$cur" = "=" ]; then
		cur=
	elif [ "$prev" = "=" ] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	fi
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--)
			if [ -n "$cmd" ]; then # the program and its arguments
				((i == COMP_CWORD - 1)) && COMPREPLY=($(compgen -c -- "$cur"))
				return 0
			fi
			;;
		-*) ;;
		*) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} ;;
		esac
	done
	case $cmd in
'''

BASH_TAIL = r'''	esac
	case " $argopts " in
	*" $prev "*)
		case " $fileopts " in *" $prev "*) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;; esac
		case " $diropts " in *" $prev "*) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;; esac
		_hwprof_option_values "$cmd" "$prev" "$cur"
		return 0
		;;
	esac
	if [ -z "$cmd" ] || [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	fi
	return 0
}
complete -o default -F _hwprof hwprof
'''


def bash_quote(words):
    return "'" + " ".join(words) + "'"


def list_options(hwprof, cmd):
    """[(names, arg, values)] from `hwprof CMD --list-options`: the command's
    option table, one option a line: names, argument, values (tab-separated)."""
    out = subprocess.run([hwprof, cmd, "--list-options"], check=True, capture_output=True,
                         text=True).stdout
    opts = []
    for line in out.splitlines():
        names, arg, values = line.split("\t")
        opts.append((names.split(), arg, values.split()))
    return opts


def write_bash(hwprof, outfile):
    main = parse(help_text(hwprof))
    cmds = commands(main)
    main_opts = sorted(set(re.findall(r"--?[a-z][a-z-]*", main["usage"])))
    body = [f"\t'') opts={bash_quote([c for c, _ in cmds] + main_opts)} ;;"]
    values = []
    for cmd, _ in cmds:
        opts, files, dirs, args = [], [], [], []
        for names, arg, vals in list_options(hwprof, cmd):
            opts += names
            if arg:
                args += names
                if arg.startswith("FILE"):
                    files += names
                elif arg == "DIR":
                    dirs += names
                if vals:
                    values.append((cmd, names, vals))
        body.append(f"\t{cmd})\n\t\topts={bash_quote(opts)}\n\t\targopts={bash_quote(args)}\n"
                    f"\t\tfileopts={bash_quote(files)}\n\t\tdiropts={bash_quote(dirs)}\n\t\t;;")
    fn = ["_hwprof_option_values() { # CMD OPTION CUR", '\tcase $1:$2 in']
    for cmd, names, vals in values:
        fn.append(f"\t{'|'.join(f'{cmd}:{n}' for n in names)}) _hwprof_values \"$3\" "
                  f"{bash_quote(vals)} ;;")
    fn += ["\tesac", "}", ""]
    Path(outfile).write_text(BASH_HEAD.replace("_hwprof() {", "\n".join(fn) + "\n_hwprof() {")
                             + "\n".join(body) + "\n" + BASH_TAIL)


# ---- the --help descriptions ----
#
# Each manual docs/hwprof-CMD.md opens with the text `hwprof CMD --help` prints
# under its usage line, in a comment the man page skips (it has its own prose):
#     <!-- help: ...
#     text, as printed
#     -->
# The command gets it from help_text("CMD") (cli/parse_options.h), compiled
# from the C this writes.

HELP_BLOCK = re.compile(r"^<!-- help:[^\n]*\n(.*?)^-->", re.S | re.M)


def c_string(text):
    """TEXT as C string literals, one per line."""
    out = []
    for line in text.splitlines(keepends=True):
        out.append('\t"' + line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"')
    return "\n".join(out)


def write_help(docs, outfile):
    entries = []
    for md in sorted(Path(docs).glob("hwprof-*.md")):
        m = HELP_BLOCK.search(md.read_text())
        if not m:
            raise SystemExit(f"helpdoc: {md}: no '<!-- help:' block (the text of --help)")
        entries.append(f'\t{{ "{md.stem[len("hwprof-"):]}",\n{c_string(m.group(1))} }},')
    Path(outfile).parent.mkdir(parents=True, exist_ok=True)
    Path(outfile).write_text(
        "/* Generated by scripts/helpdoc.py from docs/hwprof-*.md: edit those. */\n"
        "#include <stddef.h>\n#include <string.h>\n\n#include \"parse_options.h\"\n\n"
        "static const struct {\n\tconst char *cmd, *text;\n} texts[] = {\n"
        + "\n".join(entries) + "\n};\n\n"
        "const char *help_text(const char *cmd)\n{\n"
        "\tfor (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)\n"
        "\t\tif (!strcmp(texts[i].cmd, cmd))\n\t\t\treturn texts[i].text;\n"
        "\treturn NULL;\n}\n")


def main():
    if sys.argv[1:2] == ["help"] and len(sys.argv) == 4:
        write_help(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["man"] and len(sys.argv) in (4, 5):
        write_man(sys.argv[2], sys.argv[3],
                  sys.argv[4] if len(sys.argv) == 5 else Path(__file__).resolve().parent.parent / "docs")
    elif sys.argv[1:2] == ["bash"] and len(sys.argv) == 4:
        write_bash(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
