/* The history's engines (engine.h, docs/history.md), by the locations they take. An
 * engine this build left out (meson's -Dsqlite and -Dpostgresql) keeps its row without
 * its functions, so that a store that asks for it is told what is missing and how to
 * build it in. PMC_HISTORY_SQLITE and PMC_HISTORY_POSTGRESQL come from
 * harness/3-history/meson.build. */
#include <stdbool.h>
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

/* The rows, in the order a location is matched; the last (SQLite) opens every location
 * that no row's prefix starts: a file's path. */
static const char *const pg_prefixes[] = {"postgresql://", "postgres://", NULL};
static const char *const sqlite_prefixes[] = {"sqlite:", NULL};
static const struct pmc_hist_kind kinds[] = {
    {"postgresql", "PostgreSQL", "libpq-dev", pg_prefixes, PG_ENGINE},
    {"sqlite", "SQLite", "libsqlite3-dev", sqlite_prefixes, SQLITE_ENGINE},
};

static bool opens(const struct pmc_hist_kind *k, const char *url)
{
	for (size_t i = 0; k->prefixes[i]; i++)
		if (strncmp(url, k->prefixes[i], strlen(k->prefixes[i])) == 0)
			return true;
	return false;
}

const struct pmc_hist_kind *pmc_hist_kind_of(const char *url)
{
	size_t i = 0;

	while (i + 1 < sizeof(kinds) / sizeof(kinds[0]) && !opens(&kinds[i], url))
		i++;
	return &kinds[i];
}
