/* The change points of a history (`pmcbench history changes`, docs/history.md): one row
 * per change point as a table for the terminal, Markdown for a pull request's comment
 * (the verdict first) or JSON for a webhook (schema "pmcbench-changes/1"): the changes
 * callbacks of the table, markdown and json reporters (reporter.h). The rows and their
 * judgement come from core/series.h; these render. */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "core/series.h"

/* "+5.02% [+4.10%, +5.90%]" of a change point, without the interval when it has none, "-"
 * without a size. */
void pmc_changes_text(const struct pmc_changepoint *cp, char *buf, size_t len);

/* Write c to out. Return 0, -ENOMEM or -EIO. */
int pmc_changes_table(FILE *out, const struct pmc_changes *c);
int pmc_changes_markdown(FILE *out, const struct pmc_changes *c);
int pmc_changes_json(FILE *out, const struct pmc_changes *c);
