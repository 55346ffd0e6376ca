/* SPDX-License-Identifier: MIT */
/* The parser, --help and --list-options of every command, from its table. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "parse_options.h"

#define HELP_WIDTH 80
/* option specs longer than this put their text after two spaces */
#define SPEC_MAX 21

static bool takes_arg(const struct opt *o)
{
	return o->argh != NULL;
}

/* How an option is named in errors: --long when it has one. */
static void opt_name(const struct opt *o, char *buf, size_t n)
{
	if (o->long_name)
		snprintf(buf, n, "--%s", o->long_name);
	else
		snprintf(buf, n, "-%c", o->short_name);
}

static int refuse(const char *cmd, const struct opt *o, const char *arg, const char *dflt)
{
	char name[64];

	opt_name(o, name, sizeof(name));
	return cli_error("%s: %s '%s'%s", cmd, name, arg, o->err ? o->err : dflt);
}

/* Every input list made is kept here: reachable until the end, as the
   command uses them (LeakSanitizer then says nothing); a command makes one
   or two (its own and a copy for a second pass). */
#define MAX_INPUT_LISTS 16
static const char **input_lists[MAX_INPUT_LISTS];

static void keep_list(const char **old, const char **v)
{
	size_t free_slot = MAX_INPUT_LISTS;

	for (size_t i = 0; i < MAX_INPUT_LISTS; i++) {
		if (old && input_lists[i] == old) {
			input_lists[i] = v;
			return;
		}
		if (!input_lists[i] && free_slot == MAX_INPUT_LISTS)
			free_slot = i;
	}
	if (free_slot < MAX_INPUT_LISTS)
		input_lists[free_slot] = v;
}

void opt_inputs__add(const struct opt_inputs *in, const char *input)
{
	const char **old = *in->list;
	const char **v = realloc(old, (*in->nr + 2) * sizeof(*v));

	if (!v) {
		*in->first = input; /* (no memory: the last one, as before) */
		return;
	}
	v[(*in->nr)++] = input;
	v[*in->nr] = NULL;
	keep_list(old, v);
	*in->list = v;
	*in->first = v[0];
}

void opt_inputs__done(const struct opt_inputs *in)
{
	if (!*in->nr && *in->first)
		opt_inputs__add(in, *in->first);
}

static int parse_count(const char *cmd, const struct opt *o, const char *arg, uint64_t *v)
{
	char *end;

	errno = 0;
	/* (strtoull takes "-1" as ULLONG_MAX: refused) */
	unsigned long long x = strtoull(arg, &end, o->flags & OPT_HEX ? 0 : 10);
	if (*arg == '-' || *arg == '+' || end == arg || *end || errno || x < o->umin || x > o->umax ||
	    ((o->flags & OPT_POW2) && (x & (x - 1))))
		return refuse(cmd, o, arg, " is not a count");
	*v = x;
	return 0;
}

static int take(const char *cmd, const struct opt *o, const char *arg)
{
	uint64_t u;
	char *end;
	double d;

	switch (o->kind) {
	case OPT_KIND_BOOL:
		*(bool *)o->value = true;
		return 0;
	case OPT_KIND_SET_INT:
		*(int *)o->value = o->ival;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_INPUT:
		opt_inputs__add(&o->inputs, arg);
		return 0;
	case OPT_KIND_U64:
		return parse_count(cmd, o, arg, o->value);
	case OPT_KIND_UINT:
		if (parse_count(cmd, o, arg, &u))
			return 1;
		*(unsigned *)o->value = (unsigned)u;
		return 0;
	case OPT_KIND_INT:
		if (parse_count(cmd, o, arg, &u))
			return 1;
		*(int *)o->value = (int)u;
		return 0;
	case OPT_KIND_DOUBLE:
		errno = 0;
		d = strtod(arg, &end);
		if (end == arg || *end || errno || isnan(d) || d < o->dmin || d > o->dmax ||
		    ((o->flags & OPT_MIN_OPEN) && d == o->dmin))
			return refuse(cmd, o, arg, " is not a number");
		*(double *)o->value = o->scale ? d * o->scale : d;
		return 0;
	case OPT_KIND_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(arg, o->choices[i])) {
				*(int *)o->value = o->ivals ? o->ivals[i] : i;
				return 0;
			}
		return refuse(cmd, o, arg, " is not one of its values");
	case OPT_KIND_CALLBACK:
		return o->cb(cmd, o, arg);
	case OPT_KIND_VERBOSE:
		cli_common_opt('v');
		return 0;
	case OPT_KIND_QUIET:
		cli_common_opt('q');
		return 0;
	case OPT_KIND_HELP:
	case OPT_KIND_END:
		break;
	}
	return 0;
}

static const struct opt *find_short(const struct opt *opts, int c)
{
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

/* An exact long name, else the one it abbreviates (as getopt_long takes
   --so for --sort); *AMBIGUOUS when it abbreviates several. */
static const struct opt *find_long(const struct opt *opts, const char *name, size_t len, bool *ambiguous,
				   bool exact)
{
	const struct opt *found = NULL;

	*ambiguous = false;
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->long_name && !strncmp(o->long_name, name, len) && !o->long_name[len])
			return o;
	if (exact)
		return NULL;
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->long_name && !strncmp(o->long_name, name, len)) {
			if (found)
				*ambiguous = true;
			found = o;
		}
	return *ambiguous ? NULL : found;
}

static const struct opt *find_inputs(const struct opt *opts)
{
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->kind == OPT_KIND_INPUT)
			return o;
	return NULL;
}

bool parse_options__wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

static void list_options(const struct opt *opts);

/* OPT (as written) has no value; BEFORE_DASHES: "-o --" (which would write to a file named "--") */
static int missing(const struct cmd_desc *cmd, const char *opt, bool before_dashes)
{
	return cli_error("%s: option '%s' needs a value%s; see 'hwprof %s --help'", cmd->name, opt,
			 before_dashes ? " before '--'" : "", cmd->name);
}

/* The positional arguments (reachable until the end, as the inputs). */
static char **args_store;

int parse_options(int argc, char **argv, const struct cmd_desc *cmd, const struct opt *opts, struct cmd_args *args)
{
	const struct opt *in = find_inputs(opts);
	bool pass = cmd->flags & CMD_PASS;
	char **pos;
	int npos = 0, i;

	if (argc > 1 && !strcmp(argv[1], "--list-options") && !pass) {
		list_options(opts);
		return 0;
	}
	if (!pass && parse_options__wants_help(argc, argv)) {
		parse_options__usage(cmd, opts, stdout);
		return 0;
	}
	if (!(pos = realloc(args_store, ((size_t)argc + 1) * sizeof(*pos))))
		return cli_error("out of memory");
	args_store = pos;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val;
		const struct opt *o;

		if (!strcmp(arg, "--")) {
			if (!pass) /* (else the next parser's) */
				i++;
			break;
		}
		if (arg[0] != '-' || !arg[1]) { /* ("-" is standard input: an argument) */
			if (cmd->flags & CMD_STOP)
				break;
			pos[npos++] = argv[i];
			continue;
		}
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool ambiguous;

			if (!(o = find_long(opts, name, len, &ambiguous, pass)) && pass) {
				pos[npos++] = argv[i];
				continue;
			}
			if (!o)
				return cli_error(ambiguous ? "%s: option '%.*s' is ambiguous; see 'hwprof %s --help'"
							   : "%s: unknown option '%.*s'; see 'hwprof %s --help'",
						 cmd->name, (int)(len + 2), arg, cmd->name);
			if (!takes_arg(o)) {
				if (eq)
					return cli_error("%s: option '--%s' takes no value", cmd->name, o->long_name);
				val = NULL;
			} else if (eq) {
				val = eq + 1;
			} else if (i + 1 < argc && strcmp(argv[i + 1], "--")) {
				val = argv[++i];
			} else {
				return missing(cmd, arg, i + 1 < argc);
			}
			if (take(cmd->name, o, val))
				return 1;
			continue;
		}
		if (pass && !find_short(opts, arg[1])) {
			pos[npos++] = argv[i];
			continue;
		}
		for (const char *p = arg + 1; *p; p++) { /* -vq, -ifile, -i file */
			if (!(o = find_short(opts, *p)))
				return cli_error("%s: unknown option '-%c'; see 'hwprof %s --help'", cmd->name, *p,
						 cmd->name);
			val = NULL;
			if (takes_arg(o)) {
				if (p[1])
					val = p + 1;
				else if (i + 1 < argc && strcmp(argv[i + 1], "--"))
					val = argv[++i];
				else
					return missing(cmd, arg, i + 1 < argc);
			}
			if (take(cmd->name, o, val))
				return 1;
			if (val)
				break;
		}
	}
	for (; i < argc; i++) /* after "--", or from the first argument on (CMD_STOP) */
		pos[npos++] = argv[i];
	pos[npos] = NULL; /* (record executes them: an argv) */
	if (npos && !(cmd->flags & (CMD_ARGS | CMD_INPUTS)))
		return cli_error("%s: unexpected argument '%s'", cmd->name, pos[0]);
	if ((cmd->flags & CMD_INPUTS) && in) {
		for (int k = 0; k < npos; k++)
			opt_inputs__add(&in->inputs, pos[k]);
		opt_inputs__done(&in->inputs);
	}
	if (args)
		*args = (struct cmd_args){ pos, (cmd->flags & CMD_INPUTS) ? 0 : npos };
	return -1;
}

/* ---- help ---- */

struct line {
	FILE *fp;
	int col;    /* where the text is */
	int indent; /* of continuation lines */
};

/* Writes WORD (LEN bytes) to L, starting a new line when it does not fit. */
static void put_word(struct line *l, const char *word, int len)
{
	if (l->col > l->indent && l->col + 1 + len > HELP_WIDTH) {
		fprintf(l->fp, "\n%*s", l->indent, "");
		l->col = l->indent;
	} else if (l->col > l->indent) {
		fputc(' ', l->fp);
		l->col++;
	}
	fprintf(l->fp, "%.*s", len, word);
	l->col += len;
}

static void put_words(struct line *l, const char *text)
{
	while (*text) {
		while (*text == ' ')
			text++;
		int len = (int)strcspn(text, " ");
		if (len)
			put_word(l, text, len);
		text += len;
	}
}

/* "-i FILE", "--sort KEYS", "--format tsv|csv": how the synopsis names O. */
static int synopsis_form(const struct opt *o, char *buf, size_t n)
{
	char arg[64] = "";
	size_t len = 0;

	/* a few short choices are shown as they are, else the argument's name */
	for (int i = 0; o->choices && o->choices[i] && len < sizeof(arg); i++)
		len += (size_t)snprintf(arg + len, sizeof(arg) - len, "%s%s", i ? "|" : "", o->choices[i]);
	if (!o->choices || len > 30)
		snprintf(arg, sizeof(arg), "%s", o->argh ? o->argh : "");
	if (o->short_name)
		return snprintf(buf, n, "-%c%s%s", o->short_name, *arg ? " " : "", arg);
	return snprintf(buf, n, "--%s%s%s", o->long_name, *arg ? " " : "", arg);
}

static void synopsis(const struct cmd_desc *cmd, const struct opt *opts, FILE *fp)
{
	char item[256], form[96];
	struct line l = { fp, 0, 0 };

	l.col = l.indent = fprintf(fp, "usage: hwprof %s", cmd->name) + 1;
	fputc(' ', fp);
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		if (o->flags & (OPT_NO_SYNOPSIS | OPT_HIDDEN | OPT_JOIN) || (cmd->flags & CMD_SUBCOMMANDS))
			continue;
		size_t n = 0;
		bool required = o->flags & OPT_REQUIRED;
		n += (size_t)snprintf(item, sizeof(item), "%s", required ? "" : "[");
		synopsis_form(o, form, sizeof(form));
		n += (size_t)snprintf(item + n, sizeof(item) - n, "%s", form);
		for (const struct opt *j = o + 1; j->kind != OPT_KIND_END && (j->flags & OPT_JOIN); j++) {
			synopsis_form(j, form, sizeof(form));
			n += (size_t)snprintf(item + n, sizeof(item) - n, " | %s", form);
		}
		snprintf(item + n, sizeof(item) - n, "%s", required ? "" : "]");
		put_word(&l, item, (int)strlen(item));
	}
	if (cmd->args)
		put_words(&l, cmd->args);
	fputc('\n', fp);
	if (cmd->synopsis2) {
		l.col = l.indent = fprintf(fp, "   or: hwprof %s", cmd->name) + 1;
		fputc(' ', fp);
		fputs(cmd->synopsis2, fp); /* (written wrapped) */
		fputc('\n', fp);
	}
}

/* "  -i, --input FILE", "      --json, --csv" */
static int spec(const struct opt *o, char *buf, size_t n)
{
	int len;

	if (o->short_name && o->long_name)
		len = snprintf(buf, n, "  -%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		len = snprintf(buf, n, "  -%c", o->short_name);
	else
		len = snprintf(buf, n, "      --%s", o->long_name);
	if (o->argh)
		len += snprintf(buf + len, n - (size_t)len, " %s", o->argh);
	for (const struct opt *j = o + 1; j->kind != OPT_KIND_END && (j->flags & OPT_JOIN); j++)
		len += snprintf(buf + len, n - (size_t)len, ", --%s", j->long_name);
	return len;
}

void parse_options__usage(const struct cmd_desc *cmd, const struct opt *opts, FILE *fp)
{
	char buf[256];
	int col = 23;

	synopsis(cmd, opts, fp);
	const char *text = cmd->text ? cmd->text : help_text(cmd->name);
	if (text)
		fprintf(fp, "\n%s", text);
	fputc('\n', fp);
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		int len = (o->flags & (OPT_HIDDEN | OPT_JOIN)) ? 0 : spec(o, buf, sizeof(buf));
		if (len <= SPEC_MAX && len + 2 > col) /* (at least today's column, 23) */
			col = len + 2;
	}
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		if (o->flags & (OPT_HIDDEN | OPT_JOIN))
			continue;
		int len = spec(o, buf, sizeof(buf));
		struct line l = { fp, col, col };

		fputs(buf, fp);
		if (len + 2 > col) {
			fputs("  ", fp);
			/* the text's first word is written as it comes, the rest wrapped at COL */
			l.col = l.indent = len + 2;
			const char *t = o->help ? o->help : "";
			int w = (int)strcspn(t, " ");
			fprintf(fp, "%.*s", w, t);
			l.col += w;
			l.indent = col;
			put_words(&l, t + w);
		} else {
			fprintf(fp, "%*s", col - len, "");
			put_words(&l, o->help ? o->help : "");
		}
		fputc('\n', fp);
	}
	if (cmd->tail)
		fprintf(fp, "\n%s", cmd->tail);
}

/*
 * hwprof CMD --list-options: one line per option for the completion
 * (scripts/helpdoc.py bash): its names, its argument, the values that
 * argument takes, tab-separated.
 */
static void list_options(const struct opt *opts)
{
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		if (o->short_name)
			printf("-%c%s", o->short_name, o->long_name ? " " : "");
		if (o->long_name)
			printf("--%s", o->long_name);
		printf("\t%s\t", o->argh ? o->argh : "");
		if (o->choices)
			for (int i = 0; o->choices[i]; i++)
				printf("%s%s", i ? " " : "", o->choices[i]);
		else if (o->values)
			fputs(o->values, stdout);
		putchar('\n');
	}
}
