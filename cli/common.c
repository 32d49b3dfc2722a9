/* SPDX-License-Identifier: MIT */
/* What every command uses: vmsim --help, vmsim help CMD, the exit
 * statuses two kinds of command share. */
#include <limits.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "base/parse.h"

/* Each command's exit statuses: only those it can return. */
const char cli_exit_write[] =
"\n"
"exit status: 0 done; 1 it failed, or the output could not go where asked\n"
"  (stderr says where it went); 2 bad input (one line on stderr says which\n"
"  value and why).\n";
const char cli_exit_info[] =
"\n"
"exit status: 0 done; 2 bad input (one line on stderr says which).\n";
static const char exit_all[] =
"\n"
"exit status: 0 done; 1 failed, or a regression (compare\n"
"  --fail-on-regression, gate); 2 bad input, or a file the gate cannot trust;\n"
"  3 a run aborted; 128+N stopped by signal N. 'vmsim CMD --help' says which\n"
"  of these CMD returns.\n"
"\n"
"  -h, --help               this help;  -V, --version  the version\n";

/* The names -l and -w take come from the simulator's tables, which
 * vmsim-compare does not link: vmsim's cli_main sets this (cmd_list.c). */
void (*cli_names_hook)(FILE *f);

static void print_names(FILE *f)
{
	if (cli_names_hook)
		cli_names_hook(f);
}

const struct cli_command *const *cli_commands;
int cli_ncommands;

/* vmsim --help: the commands (from the table that dispatches them), the
 * names -l and -w take, the exit statuses. */
void cli_usage(FILE *f)
{
	int w = 0;

	fputs("usage: vmsim <command> [options]   ('vmsim <command> --help': "
	      "its options)\n\ncommands:\n", f);
	for (int i = 0; i < cli_ncommands; i++)
		if ((int)strlen(cli_commands[i]->name) > w)
			w = (int)strlen(cli_commands[i]->name);
	for (int i = 0; i < cli_ncommands; i++) {
		const char *s = cli_commands[i]->summary;

		fprintf(f, "  %-*s ", w, cli_commands[i]->name);
		for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1)
			fprintf(f, "%.*s\n%*s", (int)(nl - s), s, w + 3, "");
		fprintf(f, "%s\n", s);
	}
	print_names(f);
	fputs(exit_all, f);
}

/* vmsim help CMD: that command's usage and options only. */
int cli_help(const char *cmd)
{
	for (int i = 0; i < cli_ncommands; i++) {
		if (!strcmp(cli_commands[i]->name, cmd)) {
			cli_print_help(cli_commands[i], stdout);
			return 0;
		}
	}
	cli_set_help_command(NULL);
	return cli_bad("help: no command '%s'", cmd);
}
