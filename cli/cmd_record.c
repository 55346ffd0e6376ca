/* SPDX-License-Identifier: MIT */
#include "cli.h"
#include "record_opts.h"
int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_error("record: not implemented yet");
}
