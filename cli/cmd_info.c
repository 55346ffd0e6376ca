/* SPDX-License-Identifier: MIT */
#include "cli.h"
int cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_error("info: not yet");
}
