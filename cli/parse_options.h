/* SPDX-License-Identifier: MIT */
/*
 * Options written once: each command declares one table of its options
 * (names, argument, help, kind, the field it fills) and this module makes
 * the parser, the --help text and the completion dump (--list-options)
 * from it, as git's and perf's parse-options do.
 *
 * `hwprof CMD --list-options` (not in --help) prints one line per option:
 * its names ("-i --input"), TAB, its argument's name (empty: none), TAB,
 * the values it takes (choices, space-separated; may be empty). The bash
 * completion is generated from it (scripts/helpdoc.py bash).
 */
#ifndef HWPROF_PARSE_OPTIONS_H
#define HWPROF_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_BOOL,     /* bool = true */
	OPT_KIND_SET_INT,  /* int = ival (--json sets a format) */
	OPT_KIND_STRING,   /* const char * = the argument */
	OPT_KIND_INPUT,    /* -i: appended to a list of inputs (struct opt_inputs) */
	OPT_KIND_U64,      /* uint64_t: a count in [umin, umax] */
	OPT_KIND_UINT,     /* unsigned: a count in [umin, umax] */
	OPT_KIND_INT,      /* int: a count in [umin, umax] */
	OPT_KIND_DOUBLE,   /* double in [dmin, dmax] (or (dmin, ..] with OPT_MIN_OPEN), times scale */
	OPT_KIND_CHOICE,   /* int = the index (or ivals[index]) of the argument among choices */
	OPT_KIND_CALLBACK, /* cb(cmd, opt, arg): non-zero when refused (the error said) */
	OPT_KIND_VERBOSE,  /* -v: more of the library's log */
	OPT_KIND_QUIET,    /* -q: errors only */
	OPT_KIND_HELP,     /* -h: this command's help (handled before parsing) */
};

/* flags */
enum {
	OPT_JOIN = 1,        /* shown on the previous option's help line, [--a | --b] in the synopsis */
	OPT_NO_SYNOPSIS = 2, /* not in the usage synopsis */
	OPT_HIDDEN = 4,      /* accepted, neither in --help nor completed */
	OPT_MIN_OPEN = 8,    /* OPT_KIND_DOUBLE: above dmin, not equal */
	OPT_HEX = 16,        /* counts: 0x... accepted too */
	OPT_POW2 = 32,       /* counts: a power of two */
	OPT_REQUIRED = 64,   /* the synopsis shows it without brackets (the command checks it) */
};

struct opt;
typedef int (*opt_cb)(const char *cmd, const struct opt *o, const char *arg);

/* Where -i and positional inputs go: *first stays the first one (or its default). */
struct opt_inputs {
	const char **first;
	const char ***list;
	size_t *nr;
};

struct opt {
	enum opt_kind kind;
	int short_name;        /* 0: none */
	const char *long_name; /* NULL: none */
	void *value;
	const char *argh;      /* the argument's name in --help; NULL: takes none */
	const char *help;      /* one paragraph, wrapped by the help printer */
	unsigned flags;
	uint64_t umin, umax;
	double dmin, dmax, scale;
	int ival;
	const char *const *choices; /* OPT_KIND_CHOICE: NULL-terminated */
	const int *ivals;           /* OPT_KIND_CHOICE: the value of each choice (NULL: its index) */
	const char *err;            /* after "CMD: --name 'ARG'" when the value is refused */
	const char *values;         /* words completed for the argument (space-separated) */
	opt_cb cb;
	struct opt_inputs inputs;
};

/* Pointer type checks: a field of the wrong type fails to compile. */
#define OPT_PTR(type, p) ((void *)(1 ? (p) : (type *)0))

#define OPT_END() { .kind = OPT_KIND_END }
#define OPT_BOOL(s, l, v, h) \
	{ .kind = OPT_KIND_BOOL, .short_name = (s), .long_name = (l), .value = OPT_PTR(bool, v), .help = (h) }
#define OPT_SET_INT(s, l, v, i, h) \
	{ .kind = OPT_KIND_SET_INT, .short_name = (s), .long_name = (l), .value = OPT_PTR(int, v), .ival = (i), .help = (h) }
/* The same for an enum field (as large as an int: checked where it is used). */
#define OPT_SET_ENUM(s, l, v, i, fl, h) \
	{ .kind = OPT_KIND_SET_INT, .short_name = (s), .long_name = (l), .value = (void *)(v), .ival = (int)(i), \
	  .flags = (fl), .help = (h) }
#define OPT_STRING(s, l, v, a, h) \
	{ .kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), .value = OPT_PTR(const char *, v), \
	  .argh = (a), .help = (h) }
#define OPT_INPUT(s, l, first_, list_, nr_, a, h)                                                    \
	{ .kind = OPT_KIND_INPUT, .short_name = (s), .long_name = (l), .argh = (a), .help = (h),      \
	  .inputs = { OPT_PTR(const char *, first_), OPT_PTR(const char **, list_), OPT_PTR(size_t, nr_) } }
#define OPT_U64(s, l, v, a, lo, hi, e, h)                                                             \
	{ .kind = OPT_KIND_U64, .short_name = (s), .long_name = (l), .value = OPT_PTR(uint64_t, v),    \
	  .argh = (a), .umin = (lo), .umax = (hi), .err = (e), .help = (h) }
#define OPT_UINT(s, l, v, a, lo, hi, e, h)                                                            \
	{ .kind = OPT_KIND_UINT, .short_name = (s), .long_name = (l), .value = OPT_PTR(unsigned, v),   \
	  .argh = (a), .umin = (lo), .umax = (hi), .err = (e), .help = (h) }
#define OPT_INT(s, l, v, a, lo, hi, e, h)                                                             \
	{ .kind = OPT_KIND_INT, .short_name = (s), .long_name = (l), .value = OPT_PTR(int, v),         \
	  .argh = (a), .umin = (lo), .umax = (hi), .err = (e), .help = (h) }
#define OPT_DOUBLE(s, l, v, a, lo, hi, sc, e, h)                                                      \
	{ .kind = OPT_KIND_DOUBLE, .short_name = (s), .long_name = (l), .value = OPT_PTR(double, v),   \
	  .argh = (a), .dmin = (lo), .dmax = (hi), .scale = (sc), .err = (e), .help = (h) }
#define OPT_CHOICE(s, l, v, a, ch, e, h)                                                              \
	{ .kind = OPT_KIND_CHOICE, .short_name = (s), .long_name = (l), .value = OPT_PTR(int, v),      \
	  .argh = (a), .choices = (ch), .err = (e), .help = (h) }
#define OPT_CALLBACK(s, l, v, a, f, h) \
	{ .kind = OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .cb = (f), .help = (h) }

/* The description `hwprof CMD --help` prints (NULL: none), from the help
   block of docs/hwprof-CMD.md (generated by scripts/helpdoc.py help). */
const char *help_text(const char *cmd);

/* What a command is: its name in messages ("fleet branches"), the
   positional arguments of its synopsis, its description paragraphs. */
struct cmd_desc {
	const char *name;
	const char *args;      /* synopsis of the positional arguments ("BEFORE AFTER") */
	const char *synopsis2; /* a second usage line (an alternative form), or NULL */
	const char *text;      /* the description: paragraphs separated by blank lines
				  (NULL: help_text(name), the manual's) */
	const char *tail;      /* a paragraph after the options (exit status), or NULL */
	unsigned flags;
};

enum {
	CMD_ARGS = 1,   /* positional arguments are returned to the command */
	CMD_INPUTS = 2, /* positional arguments are inputs (the table's OPT_INPUT) */
	CMD_STOP = 4,   /* options end at the first positional argument (record's program) */
	CMD_PASS = 8,   /* options not in the table are left, with the positional arguments, in
			   ARGS for another parser (the fleet's filters, then the command's);
			   long names are not abbreviated */
	CMD_SUBCOMMANDS = 16, /* the synopsis is ARGS alone (the fleet's subcommands) */
};

/*
 * Parses ARGV[1..ARGC) against OPTS. Returns -1 to go on, 0 when the help
 * was printed (--help/-h anywhere before "--"), 1 after one error line.
 * With CMD_ARGS the positional arguments are in ARGS (NULL otherwise);
 * else a positional argument is an error. ARGV is left as it was.
 */
struct cmd_args {
	char **v; /* the positional arguments, in order */
	int n;
};
int parse_options(int argc, char **argv, const struct cmd_desc *cmd, const struct opt *opts, struct cmd_args *args);
/* Appends INPUT to the list of IN (as -i does). */
void opt_inputs__add(const struct opt_inputs *in, const char *input);
/* After the last one: an empty list gets the default (*IN->first), so that
   the list always names what is read. parse_options() does it with
   CMD_INPUTS; a command adding positional inputs itself calls it. */
void opt_inputs__done(const struct opt_inputs *in);
/* Whether ARGV asks for --help or -h (before "--"). */
bool parse_options__wants_help(int argc, char **argv);
/* The command's --help text, from its table. */
void parse_options__usage(const struct cmd_desc *cmd, const struct opt *opts, FILE *fp);

/* -v, -q and -h, which every command takes (last in its table). */
#define OPT_COMMON()                                                                                      \
	{ .kind = OPT_KIND_VERBOSE, .short_name = 'v', .long_name = "verbose", .flags = OPT_NO_SYNOPSIS,  \
	  .help = "say what was done and skipped (-vv: debug detail)" },                                  \
	{ .kind = OPT_KIND_QUIET, .short_name = 'q', .long_name = "quiet", .flags = OPT_NO_SYNOPSIS,      \
	  .help = "print no warnings, only errors" },                                                      \
	{ .kind = OPT_KIND_HELP, .short_name = 'h', .long_name = "help", .flags = OPT_NO_SYNOPSIS,        \
	  .help = "this text" }

#endif
