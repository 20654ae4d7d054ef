/* `pmcbench run -p PID` and `-a` (cli_run_priv.h): the processes to attach to, and the
 * options of attached counting checked against the rest of the command line. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "cli/cli.h"
#include "cli/cli_run_priv.h"

int pmc_cli_run_parse_pids(struct run_cli *c, const char *list)
{
	const char *p = list;

	for (;;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || v > INT_MAX || (*end && *end != ',')) {
			pmc_cli_error("-p '%s': not a list of process ids; give PID[,PID...]",
				      list);
			return -EINVAL;
		}
		if (pmc_grow(&c->pids, c->npids, sizeof(*c->pids)) < 0)
			return -ENOMEM;
		c->pids[c->npids++] = (pid_t)v;
		if (!*end)
			break;
		p = end + 1;
	}
	c->ro.attach_pids = c->pids;
	c->ro.nattach = c->npids;
	return 0;
}

/* What attached counting cannot go with; NULL when nothing. */
static const char *conflict(const struct run_cli *c)
{
	if (c->ro.duet)
		return "--duet";
	if (c->runs_auto)
		return "--runs auto";
	if (c->so.profile)
		return "--profile";
	if (c->nparams)
		return "-L/-P";
	if (c->ro.setup || c->ro.prepare || c->ro.cleanup)
		return c->ro.setup ? "--setup" : c->ro.prepare ? "--prepare" : "--cleanup";
	if (c->gate)
		return "--gate";
	return NULL;
}

int pmc_cli_run_check_attach(const struct run_cli *c, size_t ncmds)
{
	bool attach = c->npids || c->ro.system_wide;
	const char *what = c->ro.system_wide ? "-a" : "-p", *other;

	if (!attach) {
		if (c->duration_given) {
			pmc_cli_error("--duration is how long -p or -a count; give one of them, "
				      "or drop --duration");
			return -EINVAL;
		}
		return 0;
	}
	if (c->npids && c->ro.system_wide) {
		pmc_cli_error("-p counts processes and -a every CPU; give one of them");
		return -EINVAL;
	}
	if (c->ro.interval_ms) {
		pmc_cli_error("-I reads the counters of a command pmcbench runs; %s counts in "
			      "windows instead: give -r N with --duration SECONDS for counts per "
			      "window, or drop -I",
			      what);
		return -EINVAL;
	}
	if (ncmds > 1) {
		pmc_cli_error("%s counts the target while one command runs (the load); give one "
			      "command, not %zu",
			      what, ncmds);
		return -EINVAL;
	}
	if (ncmds && c->duration_given) {
		pmc_cli_error("%s counts while the command runs, or for --duration; give one of "
			      "them",
			      what);
		return -EINVAL;
	}
	if (!ncmds && !c->duration_given && c->ro.system_wide) {
		pmc_cli_error("-a needs a window: --duration SECONDS, or a command to count "
			      "while it runs (-- COMMAND)");
		return -EINVAL;
	}
	if (!ncmds && !c->duration_given && c->ro.runs > 1) {
		pmc_cli_error("-p without --duration or a command counts until the process "
			      "exits, one window; -r %zu windows need --duration SECONDS or a "
			      "command",
			      c->ro.runs);
		return -EINVAL;
	}
	if (pmc_backend_get(c->so.backend)->simulated) {
		pmc_cli_error("%s counts with the kernel's counters; --backend %s cannot attach "
			      "to a running process: drop it",
			      what, pmc_backend_get(c->so.backend)->name);
		return -EINVAL;
	}
	if ((other = conflict(c))) {
		pmc_cli_error("%s does not go with %s: drop one of them", other, what);
		return -EINVAL;
	}
	return 0;
}
