#!/usr/bin/env python3
"""Man pages from hwprof's own --help texts, bash completion from its option tables.

    helpdoc.py man HWPROF OUTDIR     hwprof.1 and hwprof-COMMAND.1 for every command
    helpdoc.py bash HWPROF OUTFILE   a bash completion script

The bash completion reads each command's option table (hwprof COMMAND
--list-options: names, argument, values). The --help texts are the man pages' source: a usage line (and its indented
continuation lines), paragraphs, option lines "  -x, --long ARG   text" with
indented continuation lines, and in `hwprof --help` a "commands:" list.
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

def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def roff_lines(lines):
    return "\n".join(esc(l.strip()) for l in lines)


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
    return f".B {esc(' '.join(words[:n]))}\n{esc(' '.join(words[n:]))}" if n < len(words) \
        else f".B {esc(' '.join(words))}"


def man_page(title, name_line, doc, version, see_also):
    out = [f'.TH {esc(title.upper())} 1 "" "hwprof {esc(version)}" "User Commands"',
           ".nh", ".SH NAME", esc(name_line), ".SH SYNOPSIS", roff_synopsis(doc["usage"])]
    if doc["text"]:
        out.append(".SH DESCRIPTION")
        out.append("\n.PP\n".join(roff_lines(p) for p in doc["text"]))
    for list_title, items in doc["lists"]:
        out.append(f".SH {esc(list_title.upper())}")
        for item, text in items:
            out += [".TP", f".BR hwprof\\-{esc(item)} (1)", esc(text)]
    if doc["options"]:
        out.append(".SH OPTIONS")
        for spec, text in doc["options"]:
            out += [".TP", roff_spec(spec)] + ([esc(text)] if text else [])
    if doc["exit"]:
        out += [".SH EXIT STATUS", roff_lines(doc["exit"])]
    out.append(".SH SEE ALSO")
    out.append(",\n".join(f".BR {esc(p)} (1)" for p in see_also))
    return "\n".join(out) + "\n"


def commands(main_doc):
    for title, items in main_doc["lists"]:
        if title == "commands":
            return items
    raise SystemExit("helpdoc: no 'commands:' list in hwprof --help")


def write_man(hwprof, outdir):
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    for old in outdir.glob("*.1"):
        old.unlink()
    version = subprocess.run([hwprof, "--version"], check=True, capture_output=True,
                             text=True).stdout.split()[-1]
    main = parse(help_text(hwprof))
    cmds = commands(main)
    pages = [f"hwprof-{c}" for c, _ in cmds]
    (outdir / "hwprof.1").write_text(man_page("hwprof", f"hwprof - {NAME_SUMMARY}", main, version,
                                              pages + ["perf"]))
    for cmd, summary in cmds:
        doc = parse(help_text(hwprof, cmd))
        page = f"hwprof-{cmd}"
        (outdir / f"{page}.1").write_text(man_page(page, f"{page} - {summary}", doc, version,
                                                   ["hwprof"] + [p for p in pages if p != page]))


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


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("man", "bash"):
        raise SystemExit(__doc__)
    (write_man if sys.argv[1] == "man" else write_bash)(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
