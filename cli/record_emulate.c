/* SPDX-License-Identifier: MIT */
#include "cli.h"
#include "record_opts.h"
int record_emulate(const struct record_opts *o)
{
	(void)o;
	return cli_error("record --emulate: not implemented yet");
}
