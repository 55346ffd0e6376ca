/* SPDX-License-Identifier: MIT */
/* hwprof paths: hot paths (placeholder until the path counter lands). */
#include "cli.h"

int cmd_paths(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_error("paths: not implemented yet");
}
