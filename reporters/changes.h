/* The change points of a history (`pmcbench history changes`, docs/history.md): one row
 * per change point as a table for the terminal, Markdown for a pull request's comment
 * (the verdict first) or JSON for a webhook (schema "pmcbench-changes/1"). The rows and
 * their judgement come from the caller (core/changepoint_judge.h); these render. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/changepoint.h"
#include "core/changepoint_judge.h"

struct pmc_change_row {
	const char *benchmark, *metric, *unit;
	const char *machine, *backend, *fingerprint, *branch; /* NULL when not known */
	const char *entry;		    /* the entry of the first point after it */
	const char *commit_before, *commit; /* the commits around it, or NULL */
	char measured[32];		    /* when the first point after was */
	size_t points;			    /* of its series */
	struct pmc_changepoint cp;
	enum pmc_cp_way way;
};

struct pmc_changes {
	const struct pmc_change_row *rows;
	size_t n;
	size_t nseries;	       /* selected */
	const char *store;     /* as it may be shown */
	const char *new_since; /* --new-since as given (the rows are the new ones), or NULL */
	struct pmc_cp_select select;
};

/* The regressions among c's rows. */
size_t pmc_changes_regressions(const struct pmc_changes *c);

/* The verdict for a pull request: with new_since, "regression" when a regression is among
 * the rows, else "pass"; NULL without new_since (old changes are not news). */
const char *pmc_changes_verdict(const struct pmc_changes *c);

/* "+5.02% [+4.10%, +5.90%]" of a change point, without the interval when it has none, "-"
 * without a size. */
void pmc_changes_text(const struct pmc_changepoint *cp, char *buf, size_t len);

/* Whether format is one of "table", "markdown" (or "md") and "json". */
bool pmc_changes_format_known(const char *format);

/* Writes c to out in format. Returns 0, -EINVAL (an unknown format), -ENOMEM or -EIO. */
int pmc_changes_write(FILE *out, const char *format, const struct pmc_changes *c);
