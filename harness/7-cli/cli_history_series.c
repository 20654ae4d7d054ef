/* What show and changes share: the change points of one series (core/series.h) with the
 * message of what went wrong, and the trend charts (reporters/charts.h) written into a
 * file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/atomic_file.h"
#include "cli/cli.h"
#include "cli/cli_history.h"
#include "core/series.h"
#include "reporters/charts.h"
#include "reporters/reporter.h"

int pmc_cli_hist_series(const struct pmc_history_point *ps, size_t n, const struct hopts *o,
			struct pmc_series *s)
{
	int r = pmc_series_changes(ps, n, &o->cp, s);

	if (r < 0)
		pmc_cli_error("%s", r == -ENOMEM ? "out of memory"
						 : "the change-point options are not valid");
	return r;
}

int pmc_cli_hist_write_charts(const char *path, const struct pmc_charts *cs, const char *format,
			      const char *store)
{
	struct pmc_atomic_file *af;
	char err[1024];
	FILE *f;
	int r;

	if (strcmp(format, "svg") == 0 && cs->n == 0) {
		pmc_cli_error("%s: nothing to draw: %s was never measured (every sample not "
			      "measured); no chart written",
			      path, cs->nskipped ? cs->skipped[0] : "the series");
		return -ENODATA;
	}
	if (pmc_atomic_file_open(path, &af, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -EIO;
	}
	f = pmc_atomic_file_stream(af);
	r = pmc_report_charts(f, format, cs, store);
	if (r == -ENOMEM) {
		pmc_atomic_file_abort(af);
		pmc_cli_error("out of memory");
		return r;
	}
	if (r < 0 || ferror(f)) {
		r = pmc_atomic_file_write_error(af) ? pmc_atomic_file_write_error(af)
		    : r < 0			    ? r
						    : -EIO;
		pmc_atomic_file_abort(af);
		pmc_cli_error("%s: cannot write the chart: %s", path, strerror(-r));
		return -EIO;
	}
	if (pmc_atomic_file_commit(af, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -EIO;
	}
	return 0;
}
