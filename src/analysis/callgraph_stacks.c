/* SPDX-License-Identifier: MIT */
/* A call graph's stacks by address (callgraph_stacks.h): each leaf of the
   frame trie walked up to the root. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/callgraph_stacks.h"
#include "analysis/callgraph_struct.h"
#include "util/error.h"
#include "util/vec.h"

int hwp__call_graph_each_stack(struct hwp_call_graph *cg, hwp__cg_stack_fn fn, void *ctx)
{
	struct hwp__cg_stack_frame *v = NULL;
	size_t cap = 0;
	int rc = 0;

	hwp__cg_settle(cg);
	for (size_t i = 1; i < cg->nnodes && !rc; i++) {
		const struct hwp__cg_tnode *t = &cg->nodes[i];
		size_t n = 0;

		if (!(t->key & HWP__CG_TERM) || !t->samples)
			continue;
		for (uint32_t a = t->parent; a; a = cg->nodes[a].parent) {
			const struct hwp__cg_frame *fr = &cg->frames[cg->nodes[a].key];

			if (n >= cap && HWP_VEC_RESERVE(v, cap, n + 1)) {
				free(v);
				return hwp__set_error(ENOMEM, "out of memory listing call stacks");
			}
			v[n++] = (struct hwp__cg_stack_frame){ fr->module, fr->offset, fr->kernel, fr->ret };
		}
		rc = fn(ctx, v, n, t->samples, t->period);
	}
	free(v);
	return rc;
}

struct hwp_session *hwp__call_graph_session(const struct hwp_call_graph *cg)
{
	return cg->session;
}
