/* SPDX-License-Identifier: MIT */
/* vmsim run's option table, from resfile/run_opts.def; its --help lines. */
#include <string.h>

#include "resfile/run_opts.h"

const struct run_opt run_optlist[RUN_NOPTS] = {
#define RUN_OPT(id, bind, rec, ...) [RUN_O_##id] = { __VA_ARGS__ },
#include "resfile/run_opts.def"
#undef RUN_OPT
};

const struct run_opt *run_opt_by_key(const char *key)
{
	for (int i = 0; i < RUN_NOPTS; i++)
		if (run_optlist[i].key && !strcmp(run_optlist[i].key, key))
			return &run_optlist[i];
	return NULL;
}


bool run_opt_applies(const struct run_opt *o, const char *source,
		     bool processes)
{
	if ((o->needs & RUN_NEEDS_UFFD) && strcmp(source, "uffd"))
		return false;
	return !((o->needs & RUN_NEEDS_THREADS) && processes);
}

const char *run_opt_needs_text(const struct run_opt *o)
{
	if ((o->needs & RUN_NEEDS_UFFD) && (o->needs & RUN_NEEDS_THREADS))
		return "with the uffd fault source in --mode threads";
	return o->needs & RUN_NEEDS_UFFD ? "with the uffd fault source" :
	       "in --mode threads";
}

/* "  -l, --lock NAME[,NAME]   text", later lines of text under its start. */

