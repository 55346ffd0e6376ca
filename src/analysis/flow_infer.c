/* SPDX-License-Identifier: MIT */
/*
 * The min-cost circulation of flow_infer.h.
 *
 * Each block is two network nodes, in and out, joined by its count's arcs;
 * each edge an arc from its source's out to its target's in; one node Z
 * closes the circulation (Z -> entry in, exit out -> Z). A sampled count t
 * costs W per unit below t and W per unit above: an arc of capacity t
 * and cost -W, and one of unbounded capacity and cost W. The negative
 * arcs start full (the flow is the samples), which leaves each node with an
 * excess or a deficit (the samples' imbalance) and a residual network
 * without a negative cost; successive shortest paths (Dijkstra with
 * potentials) then move the excesses to the deficits at least cost.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/flow_infer.h"
#include "util/vec.h"

#define INF_CAP (INT64_MAX / 4)
#define INF_DIST INT64_MAX

struct arc {
	uint32_t from, to;
	int64_t cap; /* residual */
	int64_t cost;
};

struct net {
	struct arc *a;
	size_t na, acap;
	size_t nv;
	size_t *first; /* CSR: arcs of node v at adj[first[v] .. first[v + 1]) */
	uint32_t *adj;
	int64_t *excess;
};

/* Adds FROM -> TO and its reverse (index ^ 1); the index, or -1. */
static long add_arc(struct net *n, uint32_t from, uint32_t to, int64_t cap, int64_t cost)
{
	if (hwp__vec_reserve((void **)&n->a, &n->acap, n->na + 2, sizeof(*n->a)) < 0)
		return -1;
	n->a[n->na] = (struct arc){ from, to, cap, cost };
	n->a[n->na + 1] = (struct arc){ to, from, 0, -cost };
	n->na += 2;
	return (long)n->na - 2;
}

/* A sampled count T on FROM -> TO at W per unit of change: the -W arc
   starts full. Returns the index of the first of the two arcs, or -1. */
static long add_count(struct net *n, uint32_t from, uint32_t to, uint64_t t, bool known, int64_t w)
{
	if (!known)
		return add_arc(n, from, to, INF_CAP, 0);
	long i = add_arc(n, from, to, (int64_t)t, -w);
	if (i < 0 || add_arc(n, from, to, INF_CAP, w) < 0)
		return -1;
	n->a[i].cap = 0;
	n->a[i + 1].cap = (int64_t)t;
	n->excess[to] += (int64_t)t;
	n->excess[from] -= (int64_t)t;
	return i;
}

/* The flow on the arcs added by add_count() at I. */
static uint64_t count_flow(const struct net *n, long i, bool known)
{
	if (!known)
		return (uint64_t)n->a[i + 1].cap;
	return (uint64_t)(n->a[i + 1].cap + n->a[i + 3].cap);
}

static int build_adj(struct net *n)
{
	n->first = calloc(n->nv + 1, sizeof(*n->first));
	n->adj = malloc((n->na ? n->na : 1) * sizeof(*n->adj));
	if (!n->first || !n->adj)
		return -ENOMEM;
	for (size_t i = 0; i < n->na; i++)
		n->first[n->a[i].from + 1]++;
	for (size_t v = 0; v < n->nv; v++)
		n->first[v + 1] += n->first[v];
	size_t *fill = malloc((n->nv + 1) * sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	for (size_t v = 0; v <= n->nv; v++)
		fill[v] = n->first[v];
	for (size_t i = 0; i < n->na; i++)
		n->adj[fill[n->a[i].from]++] = (uint32_t)i;
	free(fill);
	return 0;
}

struct heap_item {
	int64_t d;
	uint32_t v;
};

static void heap_push(struct heap_item *h, size_t *nh, struct heap_item x)
{
	size_t i = (*nh)++;

	while (i && h[(i - 1) / 2].d > x.d) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static struct heap_item heap_pop(struct heap_item *h, size_t *nh)
{
	struct heap_item top = h[0], x = h[--*nh];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *nh)
			break;
		if (c + 1 < *nh && h[c + 1].d < h[c].d)
			c++;
		if (h[c].d >= x.d)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*nh)
		h[i] = x;
	return top;
}

/* Successive shortest paths from S to T until no path is left. */
static int ssp(struct net *n, uint32_t s, uint32_t t)
{
	int64_t *pi = calloc(n->nv, sizeof(*pi)), *dist = malloc(n->nv * sizeof(*dist));
	long *via = malloc(n->nv * sizeof(*via));
	/* every arc pushes at most once per round */
	struct heap_item *heap = malloc((n->na + 1) * sizeof(*heap));
	int err = 0;

	if (!pi || !dist || !via || !heap) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		size_t nh = 0;

		for (size_t v = 0; v < n->nv; v++) {
			dist[v] = INF_DIST;
			via[v] = -1;
		}
		dist[s] = 0;
		heap_push(heap, &nh, (struct heap_item){ 0, s });
		while (nh) {
			struct heap_item x = heap_pop(heap, &nh);

			if (x.d != dist[x.v])
				continue;
			for (size_t k = n->first[x.v]; k < n->first[x.v + 1]; k++) {
				const struct arc *a = &n->a[n->adj[k]];
				int64_t d;

				if (a->cap <= 0)
					continue;
				d = x.d + a->cost + pi[x.v] - pi[a->to];
				if (d < dist[a->to]) {
					dist[a->to] = d;
					via[a->to] = (long)n->adj[k];
					heap_push(heap, &nh, (struct heap_item){ d, a->to });
				}
			}
		}
		if (dist[t] == INF_DIST)
			break;
		for (size_t v = 0; v < n->nv; v++)
			if (dist[v] != INF_DIST)
				pi[v] += dist[v];
		int64_t push = INF_CAP;
		for (uint32_t v = t; v != s; v = n->a[via[v]].from)
			if (n->a[via[v]].cap < push)
				push = n->a[via[v]].cap;
		for (uint32_t v = t; v != s; v = n->a[via[v]].from) {
			n->a[via[v]].cap -= push;
			n->a[via[v] ^ 1].cap += push;
		}
	}
out:
	free(pi);
	free(dist);
	free(via);
	free(heap);
	return err;
}

int hwp__infer_solve(struct hwp__infer_node *nodes, size_t nn, struct hwp__infer_edge *edges, size_t ne)
{
	struct net n = { .nv = 2 * nn + 3 };
	uint32_t z = (uint32_t)(2 * nn), s = z + 1, t = z + 2;
	long *node_arc = malloc((nn ? nn : 1) * sizeof(*node_arc));
	long *edge_arc = malloc((ne ? ne : 1) * sizeof(*edge_arc));
	int err = -ENOMEM;

	n.excess = calloc(n.nv, sizeof(*n.excess));
	if (!node_arc || !edge_arc || !n.excess)
		goto out;
	for (size_t v = 0; v < nn; v++) {
		uint32_t in = (uint32_t)(2 * v), out = in + 1;

		if ((node_arc[v] = add_count(&n, in, out, nodes[v].count, nodes[v].known, HWP__INFER_BLOCK)) < 0 ||
		    add_arc(&n, z, in, INF_CAP, nodes[v].entry ? 0 : HWP__INFER_LEAK) < 0 ||
		    add_arc(&n, out, z, INF_CAP, nodes[v].exit ? 0 : HWP__INFER_LEAK) < 0)
			goto out;
	}
	for (size_t e = 0; e < ne; e++)
		if ((edge_arc[e] = add_count(&n, 2 * edges[e].from + 1, 2 * edges[e].to, edges[e].count,
					     edges[e].known, HWP__INFER_EDGE)) < 0)
			goto out;
	for (uint32_t v = 0; v < z; v++) {
		if (n.excess[v] > 0 && add_arc(&n, s, v, n.excess[v], 0) < 0)
			goto out;
		if (n.excess[v] < 0 && add_arc(&n, v, t, -n.excess[v], 0) < 0)
			goto out;
	}
	if (build_adj(&n) < 0 || ssp(&n, s, t) < 0)
		goto out;
	for (size_t v = 0; v < nn; v++)
		nodes[v].flow = count_flow(&n, node_arc[v], nodes[v].known);
	for (size_t e = 0; e < ne; e++)
		edges[e].flow = count_flow(&n, edge_arc[e], edges[e].known);
	err = 0;
out:
	free(node_arc);
	free(edge_arc);
	free(n.excess);
	free(n.a);
	free(n.first);
	free(n.adj);
	return err;
}

double hwp__infer_bias(const struct hwp__infer_node *nodes, size_t nn, const struct hwp__infer_edge *edges,
		       size_t ne, bool after, uint64_t min_in, size_t *considered)
{
	double *in = calloc(nn ? nn : 1, sizeof(*in)), *out = calloc(nn ? nn : 1, sizeof(*out));
	double sum = 0;
	size_t k = 0;

	*considered = 0;
	if (!in || !out) {
		free(in);
		free(out);
		return 0;
	}
	for (size_t e = 0; e < ne; e++) {
		double c = (double)(after ? edges[e].flow : edges[e].count);

		out[edges[e].from] += c;
		in[edges[e].to] += c;
	}
	for (size_t v = 0; v < nn; v++) {
		if (nodes[v].entry || in[v] < (double)min_in || out[v] <= 0)
			continue;
		sum += fabs(out[v] - in[v]) / in[v];
		k++;
	}
	free(in);
	free(out);
	*considered = k;
	return k ? 100.0 * sum / (double)k : 0;
}
