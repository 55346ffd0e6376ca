/* SPDX-License-Identifier: MIT */
/* perf's symbol red-black tree, replayed on indices. See symtree.h. */
#include <errno.h>
#include <stdlib.h>

#include "symbolize/symtab.h"
#include "symbolize/symtree.h"

#define NIL (-1)

void hwp__symtree_init(struct hwp_symtree *t)
{
	t->n = NULL;
	t->cap = 0;
	t->root = NIL;
}

int hwp__symtree_reserve(struct hwp_symtree *t, size_t n)
{
	struct hwp_symtree_node *v;
	size_t cap;

	if (n <= t->cap)
		return 0;
	if (n > INT32_MAX)
		return -ENOMEM;
	cap = t->cap ? t->cap : 256;
	while (cap < n)
		cap *= 2;
	v = realloc(t->n, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->n = v;
	t->cap = cap;
	return 0;
}

static bool is_red(const struct hwp_symtree *t, int32_t x)
{
	return x != NIL && t->n[x].red;
}

/* Puts NEW where OLD hangs from PARENT (or at the root). */
static void replace_child(struct hwp_symtree *t, int32_t parent, int32_t old, int32_t new)
{
	if (parent == NIL)
		t->root = new;
	else if (t->n[parent].left == old)
		t->n[parent].left = new;
	else
		t->n[parent].right = new;
	if (new != NIL)
		t->n[new].parent = parent;
}

/* X's right child takes X's place; X becomes its left child. */
static void rotate_left(struct hwp_symtree *t, int32_t x)
{
	int32_t y = t->n[x].right, b = t->n[y].left;

	replace_child(t, t->n[x].parent, x, y);
	t->n[x].right = b;
	if (b != NIL)
		t->n[b].parent = x;
	t->n[y].left = x;
	t->n[x].parent = y;
}

static void rotate_right(struct hwp_symtree *t, int32_t x)
{
	int32_t y = t->n[x].left, b = t->n[y].right;

	replace_child(t, t->n[x].parent, x, y);
	t->n[x].left = b;
	if (b != NIL)
		t->n[b].parent = x;
	t->n[y].right = x;
	t->n[x].parent = y;
}

void hwp__symtree_insert(struct hwp_symtree *t, const struct hwp_sym *v, int32_t i)
{
	int32_t parent = NIL, cur = t->root, x = i;
	bool left = false;

	while (cur != NIL) {
		parent = cur;
		left = v[i].start < v[cur].start;
		cur = left ? t->n[cur].left : t->n[cur].right;
	}
	t->n[i] = (struct hwp_symtree_node){ NIL, NIL, parent, true };
	if (parent == NIL)
		t->root = i;
	else if (left)
		t->n[parent].left = i;
	else
		t->n[parent].right = i;

	/* Restore the red-black rules bottom-up (CLRS RB-INSERT-FIXUP). */
	while (is_red(t, t->n[x].parent)) {
		int32_t p = t->n[x].parent, g = t->n[p].parent, u;

		if (p == t->n[g].left) {
			u = t->n[g].right;
			if (is_red(t, u)) { /* red uncle: recolour, go up two levels */
				t->n[p].red = t->n[u].red = false;
				t->n[g].red = true;
				x = g;
				continue;
			}
			if (x == t->n[p].right) { /* inner grandchild: make it outer */
				rotate_left(t, p);
				x = p;
				p = t->n[x].parent;
			}
			t->n[p].red = false;
			t->n[g].red = true;
			rotate_right(t, g);
		} else {
			u = t->n[g].left;
			if (is_red(t, u)) {
				t->n[p].red = t->n[u].red = false;
				t->n[g].red = true;
				x = g;
				continue;
			}
			if (x == t->n[p].left) {
				rotate_right(t, p);
				x = p;
				p = t->n[x].parent;
			}
			t->n[p].red = false;
			t->n[g].red = true;
			rotate_left(t, g);
		}
	}
	t->n[t->root].red = false;
}

/* A black node was taken out below PARENT on the side where X (maybe NIL)
   now hangs: restore equal black heights (CLRS RB-DELETE-FIXUP). */
static void erase_fixup(struct hwp_symtree *t, int32_t x, int32_t parent)
{
	while (x != t->root && !is_red(t, x)) {
		int32_t s;

		if (x == t->n[parent].left) {
			s = t->n[parent].right;
			if (is_red(t, s)) {
				t->n[s].red = false;
				t->n[parent].red = true;
				rotate_left(t, parent);
				s = t->n[parent].right;
			}
			if (!is_red(t, t->n[s].left) && !is_red(t, t->n[s].right)) {
				t->n[s].red = true;
				x = parent;
				parent = t->n[x].parent;
				continue;
			}
			if (!is_red(t, t->n[s].right)) {
				t->n[t->n[s].left].red = false;
				t->n[s].red = true;
				rotate_right(t, s);
				s = t->n[parent].right;
			}
			t->n[s].red = t->n[parent].red;
			t->n[parent].red = false;
			t->n[t->n[s].right].red = false;
			rotate_left(t, parent);
		} else {
			s = t->n[parent].left;
			if (is_red(t, s)) {
				t->n[s].red = false;
				t->n[parent].red = true;
				rotate_right(t, parent);
				s = t->n[parent].left;
			}
			if (!is_red(t, t->n[s].left) && !is_red(t, t->n[s].right)) {
				t->n[s].red = true;
				x = parent;
				parent = t->n[x].parent;
				continue;
			}
			if (!is_red(t, t->n[s].left)) {
				t->n[t->n[s].right].red = false;
				t->n[s].red = true;
				rotate_left(t, s);
				s = t->n[parent].left;
			}
			t->n[s].red = t->n[parent].red;
			t->n[parent].red = false;
			t->n[t->n[s].left].red = false;
			rotate_right(t, parent);
		}
		x = t->root;
	}
	if (x != NIL)
		t->n[x].red = false;
}

void hwp__symtree_erase(struct hwp_symtree *t, int32_t z)
{
	struct hwp_symtree_node *zn = &t->n[z];
	int32_t x, xparent;
	bool removed_red;

	if (zn->left == NIL || zn->right == NIL) {
		/* at most one child: it takes z's place */
		x = zn->left != NIL ? zn->left : zn->right;
		xparent = zn->parent;
		removed_red = zn->red;
		replace_child(t, zn->parent, z, x);
	} else {
		/* two children: the successor (leftmost on the right) takes z's
		   place and colour; its own place goes to its right child */
		int32_t y = zn->right;

		while (t->n[y].left != NIL)
			y = t->n[y].left;
		removed_red = t->n[y].red;
		x = t->n[y].right;
		if (t->n[y].parent == z) {
			xparent = y;
		} else {
			xparent = t->n[y].parent;
			replace_child(t, xparent, y, x);
			t->n[y].right = zn->right;
			t->n[zn->right].parent = y;
		}
		replace_child(t, zn->parent, z, y);
		t->n[y].left = zn->left;
		t->n[zn->left].parent = y;
		t->n[y].red = zn->red;
	}
	if (!removed_red)
		erase_fixup(t, x, xparent);
}

int32_t hwp__symtree_find(const struct hwp_symtree *t, const struct hwp_sym *v, uint64_t addr)
{
	int32_t cur = t->root;

	while (cur != NIL) {
		const struct hwp_sym *s = &v[cur];

		if (addr < s->start)
			cur = t->n[cur].left;
		else if (addr > s->end || (addr == s->end && s->end != s->start))
			cur = t->n[cur].right;
		else
			return cur;
	}
	return NIL;
}

void hwp__symtree_free(struct hwp_symtree *t)
{
	free(t->n);
	hwp__symtree_init(t);
}
