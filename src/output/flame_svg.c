/* SPDX-License-Identifier: MIT */
/*
 * Flame graphs (see include/hwprof/flame.h): a tree of frame names keyed by
 * (parent, name), folded-stack text, and one self-contained SVG with its
 * own script. The layout is flamegraph.pl's: siblings in name order, root
 * ("all") at the bottom, widths proportional to counts. Every frame carries
 * its position in count units (data-x, data-w) and its depth (data-d), so
 * the script zooms without the tree, and a reader can rebuild the tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callgraph_struct.h"
#include "hwprof/flame.h"
#include "hwprof/symbolize.h"
#include "output/flame_tree.h"
#include "output/markup.h"
#include "output/outbuf.h"
#include "output/render.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/opts.h"
#include "util/vec.h"

/* ---- colours: flamegraph.pl's palettes (text escaping is output/markup.h's) ---- */

/* flamegraph.pl's "hot" palette, seeded by the name so colours are stable. */
static void svg_hot_color(const char *name, char *buf, size_t size)
{
	uint64_t h = hwp__hash_str(name);
	unsigned r = 205 + (unsigned)(h % 50), g = (unsigned)((h >> 8) % 230), b = (unsigned)((h >> 16) % 55);

	snprintf(buf, size, "rgb(%u,%u,%u)", r, g, b);
}

/* A change of RATIO (-1..1): white to red (grew) or blue (shrank). */
static void svg_diff_color(double ratio, char *buf, size_t size)
{
	unsigned c = (unsigned)lround(210.0 * (1.0 - fabs(ratio)));

	if (ratio > 0)
		snprintf(buf, size, "rgb(255,%u,%u)", c, c);
	else if (ratio < 0)
		snprintf(buf, size, "rgb(%u,%u,255)", c, c);
	else
		snprintf(buf, size, "rgb(250,250,250)");
}

/* ---- the tree ---- */

struct fnode {
	uint32_t parent, name;
	uint64_t self[2], total[2];
	uint32_t first, next; /* children, after sorting (0: none; the root is never a child) */
	uint32_t depth;
	uint64_t x;           /* start in AFTER units */
};

struct hwp_flame {
	char **names;
	size_t nnames, names_cap;
	struct hwp_hashmap name_map;
	struct fnode *nodes; /* node 0: "all" */
	size_t nnodes, nodes_cap;
	struct hwp_hashmap node_map;
	bool sides[2];
};

struct hwp_flame *hwp_flame__new(void)
{
	struct hwp_flame *f = calloc(1, sizeof(*f));

	if (!f || !HWP_VEC_PUSH(f->nodes, f->nnodes, f->nodes_cap)) {
		free(f);
		hwp__set_error(ENOMEM, "out of memory making a flame graph");
		return NULL;
	}
	return f;
}

void hwp_flame__delete(struct hwp_flame *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i]);
	free(f->names);
	hwp__hashmap_free(&f->name_map);
	free(f->nodes);
	hwp__hashmap_free(&f->node_map);
	free(f);
}

static int nomem(void)
{
	return hwp__set_error(ENOMEM, "out of memory building a flame graph");
}

static int name_id(struct hwp_flame *f, const char *s, uint32_t *id)
{
	uint64_t h = hwp__hash_str(s);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&f->name_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(f->names[i], s)) {
			*id = i;
			return 0;
		}
	char *copy = strdup(s);
	char **slot = copy ? HWP_VEC_PUSH(f->names, f->nnames, f->names_cap) : NULL;
	if (!slot) {
		free(copy);
		return nomem();
	}
	*slot = copy;
	/* folded stacks separate frames with ';' and end at the count */
	for (char *c = copy; *c; c++)
		if (*c == ';' || *c == '\n' || *c == '\r')
			*c = ':';
	if (hwp__hashmap_add(&f->name_map, h, f->nnames - 1) < 0)
		return nomem();
	*id = (uint32_t)(f->nnames - 1);
	return 0;
}

static int node_child(struct hwp_flame *f, uint32_t parent, uint32_t name, uint32_t *out)
{
	uint64_t h = hwp__hash_combine(hwp__hash64(parent), name);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&f->node_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (f->nodes[i].parent == parent && f->nodes[i].name == name) {
			*out = i;
			return 0;
		}
	struct fnode *n = HWP_VEC_PUSH(f->nodes, f->nnodes, f->nodes_cap);
	if (!n || hwp__hashmap_add(&f->node_map, h, f->nnodes - 1) < 0)
		return nomem();
	n->parent = parent;
	n->name = name;
	*out = (uint32_t)(f->nnodes - 1);
	return 0;
}

static void count(struct hwp_flame *f, uint32_t node, enum hwp_flame_side side, uint64_t value)
{
	f->nodes[node].self[side] += value;
	f->sides[side] = true;
	for (uint32_t n = node;; n = f->nodes[n].parent) {
		f->nodes[n].total[side] += value;
		if (!n)
			break;
	}
}

int hwp_flame__add_stack(struct hwp_flame *f, enum hwp_flame_side side, const char *const *names, size_t n,
			 uint64_t value)
{
	uint32_t node = 0, id;
	int err;

	if ((unsigned)side > 1)
		return hwp__set_error(EINVAL, "flame graph: bad side %d", (int)side);
	for (size_t i = 0; i < n; i++)
		if ((err = name_id(f, names[i] ? names[i] : "[unknown]", &id)) || (err = node_child(f, node, id, &node)))
			return err;
	count(f, node, side, value);
	return 0;
}

int hwp_flame__add_call_graph(struct hwp_flame *f, enum hwp_flame_side side, struct hwp_call_graph *cg,
			     struct hwp_session *s, bool period)
{
	const struct hwp_cg_function *fn;
	const struct hwp_cg_node *t;
	/* (names only: the functions' totals are not derived) */
	size_t nt = hwp_call_graph__tree(cg, &t), nf = hwp__call_graph_function_names(cg, &fn);
	uint32_t *fname = calloc(nf + 1, sizeof(*fname)), *map = calloc(nt + 1, sizeof(*map));
	struct hwp_symbolizer *sym = hwp_session__symbolizer(s);
	char buf[512];
	int err = 0;

	if ((unsigned)side > 1)
		err = hwp__set_error(EINVAL, "flame graph: bad side %d", (int)side);
	else if (!fn || !t)
		err = -(errno ? errno : ENOMEM); /* the call graph set the message */
	else if (!fname || !map)
		err = nomem();
	for (size_t i = 0; !err && i < nf; i++) {
		const char *name = fn[i].name;
		if (!name) {
			/* kernel addresses are absolute: no module name */
			const char *mod = sym && fn[i].module >= 0 && !fn[i].kernel
						  ? hwp_symbolizer__module_short_name(sym, fn[i].module) : NULL;
			if (mod)
				snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, mod, fn[i].offset);
			else
				snprintf(buf, sizeof(buf), "0x%" PRIx64, fn[i].offset);
			name = buf;
		}
		err = name_id(f, name, &fname[i]);
	}
	/* the callgraph tree's parents precede their children */
	for (size_t i = 1; !err && i < nt; i++) {
		err = node_child(f, map[t[i].parent], fname[t[i].function], &map[i]);
		uint64_t v = period ? t[i].self_period : t[i].self_samples;
		if (!err && v)
			count(f, map[i], side, v);
	}
	free(fname);
	free(map);
	return err;
}

/* ---- output ---- */

static const struct hwp_flame *g_sort;

static int by_name(const void *a, const void *b)
{
	return strcmp(g_sort->names[g_sort->nodes[*(const uint32_t *)a].name],
		      g_sort->names[g_sort->nodes[*(const uint32_t *)b].name]);
}

/* Links children in name order and lays the tree out (x, depth) in AFTER
   units (BEFORE when there is no AFTER). Returns the maximum depth, <0. */
static int layout(struct hwp_flame *f, int side)
{
	uint32_t *order = malloc((f->nnodes + 1) * sizeof(*order));
	int maxd = 0;

	if (!order)
		return nomem();
	for (size_t i = 0; i < f->nnodes; i++) {
		order[i] = (uint32_t)i;
		f->nodes[i].first = f->nodes[i].next = 0;
	}
	g_sort = f;
	qsort(order + 1, f->nnodes - 1, sizeof(*order), by_name);
	/* prepend in reverse name order: lists come out in name order */
	for (size_t k = f->nnodes; k-- > 1;) {
		struct fnode *n = &f->nodes[order[k]];
		n->next = f->nodes[n->parent].first;
		f->nodes[n->parent].first = order[k];
	}
	free(order);
	/* parents precede children in the node array: one forward pass */
	f->nodes[0].x = 0;
	f->nodes[0].depth = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		uint64_t x = f->nodes[i].x;
		for (uint32_t c = f->nodes[i].first; c; c = f->nodes[c].next) {
			f->nodes[c].x = x;
			f->nodes[c].depth = f->nodes[i].depth + 1;
			if ((int)f->nodes[c].depth > maxd && f->nodes[c].total[side])
				maxd = (int)f->nodes[c].depth;
			x += f->nodes[c].total[side];
		}
	}
	return maxd;
}

static void put_path(struct hwp_outbuf *o, const struct hwp_flame *f, uint32_t n)
{
	if (f->nodes[n].parent)
		put_path(o, f, f->nodes[n].parent), hwp__outbuf_putc(o, ';');
	hwp__outbuf_puts(o, f->names[f->nodes[n].name]);
}

int hwp__flame_each_node(const struct hwp_flame *f,
			 int (*fn)(void *ctx, uint32_t node, uint32_t parent, const char *name, uint64_t self),
			 void *ctx)
{
	/* a node is made after its parent: its number is larger */
	for (uint32_t n = 1; n < f->nnodes; n++) {
		int r = fn(ctx, n, f->nodes[n].parent, f->names[f->nodes[n].name], f->nodes[n].self[HWP_FLAME_AFTER]);

		if (r)
			return r;
	}
	return 0;
}

size_t hwp__flame_nodes(const struct hwp_flame *f)
{
	return f->nnodes;
}

int hwp_flame__write_folded(struct hwp_flame *f, FILE *fp)
{
	struct hwp_outbuf o;
	bool diff = f->sides[HWP_FLAME_BEFORE];
	int err = layout(f, HWP_FLAME_AFTER);

	if (err < 0)
		return err;
	if (hwp__outbuf_init(&o, fp))
		return nomem();
	/* depth-first in name order: flamegraph.pl's sorted input */
	uint32_t *stack = malloc((f->nnodes + 1) * sizeof(*stack));
	size_t sp = 0;
	if (!stack) {
		hwp__outbuf_finish(&o);
		return nomem();
	}
	for (uint32_t c = f->nodes[0].first; c; c = f->nodes[c].next)
		stack[sp++] = c;
	/* reverse so the first child is popped first */
	for (size_t a = 0, b = sp ? sp - 1 : 0; a < b; a++, b--) {
		uint32_t t = stack[a];
		stack[a] = stack[b];
		stack[b] = t;
	}
	while (sp) {
		uint32_t n = stack[--sp];
		const struct fnode *x = &f->nodes[n];
		if (x->self[0] || x->self[1]) {
			put_path(&o, f, n);
			hwp__outbuf_putc(&o, ' ');
			if (diff) {
				hwp__outbuf_u64(&o, x->self[HWP_FLAME_BEFORE]);
				hwp__outbuf_putc(&o, ' ');
			}
			hwp__outbuf_u64(&o, x->self[HWP_FLAME_AFTER]);
			hwp__outbuf_putc(&o, '\n');
		}
		size_t at = sp;
		for (uint32_t c = x->first; c; c = f->nodes[c].next)
			stack[sp++] = c;
		for (size_t a = at, b = sp ? sp - 1 : 0; sp > at && a < b; a++, b--) {
			uint32_t t = stack[a];
			stack[a] = stack[b];
			stack[b] = t;
		}
	}
	free(stack);
	err = hwp__outbuf_finish(&o);
	return err ? hwp__set_error(-err, "writing folded stacks: %s", strerror(-err)) : 0;
}

#include "flame_svg_script.h"

/* NAME cut to what fits W pixels (the script does the same after a zoom). */
static void put_label(struct hwp_outbuf *o, const char *name, double w)
{
	char buf[512];
	long c = (long)((w - 6) / 7.1);
	size_t len = strlen(name);

	if (c < 3)
		return;
	if ((size_t)c >= len || c > (long)sizeof(buf) - 1) {
		hwp__markup_escape(o, name);
		return;
	}
	/* (a cut inside a UTF-8 sequence would be invalid XML: back off) */
	size_t k = (size_t)c - 2;
	while (k && ((unsigned char)name[k] & 0xc0) == 0x80)
		k--;
	memcpy(buf, name, k);
	strcpy(buf + k, "..");
	hwp__markup_escape(o, buf);
}

#define FRAME_H 16
#define FONT 12
#define PAD 10
#define TOP 60

int hwp__flame_render_svg(struct hwp_flame *f, struct hwp_outbuf *ob, const struct hwp_flame_svg_opts *opts)
{
	struct hwp_flame_svg_opts o;
	bool diff = f->sides[HWP_FLAME_BEFORE] && f->sides[HWP_FLAME_AFTER];
	int side = f->sides[HWP_FLAME_AFTER] || !f->sides[HWP_FLAME_BEFORE] ? HWP_FLAME_AFTER : HWP_FLAME_BEFORE;
	char fill[64];

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_flame_svg_opts))
		return -EINVAL;
	unsigned width = o.width ? o.width : 1200;
	double minw = o.min_width > 0 ? o.min_width : 0.1;
	const char *unit = o.unit ? o.unit : "samples";
	int maxd = layout(f, side);
	if (maxd < 0)
		return maxd;
	uint64_t total = f->nodes[0].total[side];
	double scale = total ? (double)(width - 2 * PAD) / (double)total : 0;
	/* BEFORE scaled to AFTER's total: the change is relative, not absolute */
	double bscale = diff && f->nodes[0].total[HWP_FLAME_BEFORE]
				? (double)total / (double)f->nodes[0].total[HWP_FLAME_BEFORE] : 1;
	double maxdelta = 0;
	if (diff)
		for (size_t i = 0; i < f->nnodes; i++) {
			double d = fabs((double)f->nodes[i].total[0] - bscale * (double)f->nodes[i].total[1]);
			if (d > maxdelta)
				maxdelta = d;
		}
	unsigned height = TOP + (unsigned)(maxd + 1) * FRAME_H + 2 * PAD + 20;

	hwp__outbuf_printf(ob,
			   "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			   "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
			   "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\" "
			   "data-total=\"%" PRIu64 "\" data-unit=\"%s\" data-width=\"%u\" data-pad=\"%d\"%s>\n",
			   width, height, width, height, total, unit, width, PAD, diff ? " data-diff=\"1\"" : "");
	hwp__outbuf_puts(ob, "<style>" FLAME_CSS "</style>\n<script><![CDATA[" FLAME_JS "]]></script>\n");
	hwp__outbuf_printf(ob, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
				"<text id=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\">",
			   width / 2);
	hwp__markup_escape(ob, o.title ? o.title : diff ? "Differential Flame Graph" : "Flame Graph");
	hwp__outbuf_puts(ob, "</text>\n");
	if (o.subtitle) {
		hwp__outbuf_printf(ob, "<text id=\"subtitle\" x=\"%u\" y=\"42\" text-anchor=\"middle\">", width / 2);
		hwp__markup_escape(ob, o.subtitle);
		hwp__outbuf_puts(ob, "</text>\n");
	}
	hwp__outbuf_printf(ob,
			   "<text id=\"unzoom\" x=\"%d\" y=\"24\" class=\"btn hide\">Reset Zoom</text>\n"
			   "<foreignObject x=\"%u\" y=\"8\" width=\"260\" height=\"26\">"
			   "<xhtml:input id=\"search\" type=\"text\" placeholder=\"Search (regex)\" "
			   "xmlns:xhtml=\"http://www.w3.org/1999/xhtml\"/></foreignObject>\n"
			   "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n"
			   "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n<g id=\"frames\">\n",
			   PAD, width - 270, width - PAD, height - 8, PAD, height - 8);
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct fnode *n = &f->nodes[i];
		uint64_t v = n->total[side];
		double w = (double)v * scale;
		const char *name = i ? f->names[n->name] : "all";
		if (!v || w < minw)
			continue;
		double x = PAD + (double)n->x * scale;
		unsigned y = height - 2 * PAD - 20 - (n->depth + 1) * FRAME_H;
		if (diff) {
			double d = (double)n->total[0] - bscale * (double)n->total[1];
			svg_diff_color(maxdelta > 0 ? d / maxdelta : 0, fill, sizeof(fill));
		} else {
			svg_hot_color(name, fill, sizeof(fill));
		}
		hwp__outbuf_puts(ob, "<g class=\"f\" data-n=\"");
		hwp__markup_escape(ob, name);
		hwp__outbuf_printf(ob, "\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%u\"", n->x, v,
				   n->depth);
		if (diff)
			hwp__outbuf_printf(ob, " data-b=\"%" PRIu64 "\"", n->total[HWP_FLAME_BEFORE]);
		hwp__outbuf_puts(ob, "><title>");
		hwp__markup_escape(ob, name);
		hwp__outbuf_printf(ob, " (%" PRIu64 " %s, %.2f%%", v, unit, total ? 100.0 * (double)v / (double)total : 0);
		if (diff) {
			double before = bscale * (double)n->total[1];
			hwp__outbuf_printf(ob, "; before %.0f scaled, %+.2f%%", before,
					   total ? 100.0 * ((double)v - before) / (double)total : 0);
		}
		hwp__outbuf_printf(ob, ")</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
					"rx=\"2\"/><text x=\"%.1f\" y=\"%u\">",
				   x, y, w, FRAME_H - 1, fill, x + 3, y + FRAME_H - 4);
		put_label(ob, name, w);
		hwp__outbuf_puts(ob, "</text></g>\n");
	}
	hwp__outbuf_puts(ob, "</g>\n</svg>\n");
	return ob->err ? hwp__set_error(ob->err, "writing the flame graph: %s", strerror(ob->err)) : 0;
}

int hwp_flame__write_svg(struct hwp_flame *f, FILE *fp, const struct hwp_flame_svg_opts *opts)
{
	struct hwp_outbuf ob;
	int err;

	if (hwp__outbuf_init(&ob, fp))
		return nomem();
	err = hwp__flame_render_svg(f, &ob, opts);
	int werr = hwp__outbuf_finish(&ob);
	return err ? err : werr ? hwp__set_error(-werr, "writing the flame graph: %s", strerror(-werr)) : 0;
}
