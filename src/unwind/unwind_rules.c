/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "unwind/unwind_rules.h"

void hwp__rule_cache_delete(struct hwp__rule_cache *rc)
{
	free(rc);
}

int hwp__unwind_rules(struct hwp__unwinder *u, struct hwp__space *sp)
{
	(void)u, (void)sp;
	return HWP__RULES_FALLBACK;
}
