/* `pmcbench report --lines FUNC PROFILE` (docs/profile.md, "Source lines"): the
 * reporter's table, or one line saying why there is none. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "cli/cli.h"
#include "profile/profile.h"
#include "reporters/profile_lines.h"

void pmc_cli_report_unknown_function(const char *path, const struct pmc_profile *p,
				     const char *option, const char *fn)
{
	struct pmc_profile_fn *fns = NULL;
	struct pmc_suggest s;
	char msg[1024];
	size_t n = 0;

	pmc_suggest_init(&s, fn, strlen(fn));
	if (pmc_profile_functions(p, &fns, &n) == 0)
		for (size_t i = 0; i < n; i++)
			pmc_suggest_offer(&s, fns[i].name, fns[i].name);
	snprintf(msg, sizeof(msg), "report %s: no function '%s' in %s", option, fn, path);
	pmc_suggest_append(&s, msg, sizeof(msg), "'pmcbench report PROFILE' lists its functions");
	pmc_cli_error("%s", msg);
	pmc_profile_functions_free(fns, n);
}

int pmc_cli_report_lines(const char *path, const struct pmc_profile *p, const char *fn)
{
	int r = pmc_profile_report_lines(stdout, p, fn);

	if (r == 0)
		r = pmc_session_stream_flush(stdout);
	switch (r) {
	case 0:
		return PMC_EXIT_OK;
	case -ENODATA:
		pmc_cli_error("report --lines: %s keeps no source lines (an exact, imported or "
			      "older profile): record it again with 'pmcbench record -o FILE -- "
			      "COMMAND'",
			      path);
		break;
	case -ENOENT:
		pmc_cli_report_unknown_function(path, p, "--lines", fn);
		break;
	case -ENOEXEC:
		pmc_cli_error("report --lines: %s: no line table covers the addresses of '%s' "
			      "(its object is stripped or was built without -g): rebuild it with "
			      "-g, or install its debug info, and record again",
			      path, fn);
		break;
	default:
		pmc_cli_error("report: cannot write to standard output: %s", strerror(-r));
	}
	return PMC_EXIT_ERROR;
}
