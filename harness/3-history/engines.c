/* The history's engines (engine.h, docs/history.md), by the locations they take. An
 * engine this build left out (meson's -Dsqlite and -Dpostgresql) keeps its row without
 * its functions, so that a store that asks for it is told what is missing and how to
 * build it in. PMC_HISTORY_SQLITE and PMC_HISTORY_POSTGRESQL come from
 * harness/3-history/meson.build. */
#include <stddef.h>
#include <string.h>

#include "history/engine.h"

#if PMC_HISTORY_SQLITE
#define SQLITE_ENGINE (&pmc_hist_sqlite)
#else
#define SQLITE_ENGINE NULL
#endif
#if PMC_HISTORY_POSTGRESQL
#define PG_ENGINE (&pmc_hist_pg)
#else
#define PG_ENGINE NULL
#endif

static const struct pmc_hist_kind sqlite_kind = {"sqlite", "SQLite", "libsqlite3-dev",
						 SQLITE_ENGINE};
static const struct pmc_hist_kind pg_kind = {"postgresql", "PostgreSQL", "libpq-dev", PG_ENGINE};

const struct pmc_hist_kind *pmc_hist_kind_of(const char *url)
{
	if (strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0)
		return &pg_kind;
	return &sqlite_kind;
}
