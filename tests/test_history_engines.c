/* The history's engine table (harness/3-history/engines.c): each location goes to its
 * engine, and one this build left out (meson's -Dsqlite, -Dpostgresql) is refused before
 * anything is opened, with one line naming the engine, its package and the option. The
 * build's choice comes from tests/meson.build (PMC_TEST_SQLITE, PMC_TEST_POSTGRESQL), so
 * the test holds in every build and checks each engine's side it has. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "history/engine.h"
#include "history/history.h"

/* Opening url to write: 0 (and closed), or the error with its message in err. */
static int open_close(const char *url, char *err, size_t errlen)
{
	struct pmc_history *h = NULL;
	int r = pmc_history_open(url, PMC_HISTORY_WRITE, &h, err, errlen);

	if (r == 0) {
		assert_non_null(h);
		pmc_history_close(h);
	} else {
		assert_null(h);
	}
	return r;
}

static void postgresql_urls(void **state)
{
	/* Nothing listens on port 1: a built engine fails to connect, never succeeds. */
	static const char *const urls[] = {"postgresql://u:secret@127.0.0.1:1/db?connect_timeout=2",
					   "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2"};
	char err[512];

	for (size_t i = 0; i < 2; i++) {
		const char *url = urls[i];
		int r;

		err[0] = 0;
		r = pmc_history_engine_check(url, err, sizeof(err));
		if (PMC_TEST_POSTGRESQL) {
			assert_int_equal(r, 0);
			r = open_close(url, err, sizeof(err));
			assert_int_not_equal(r, 0);
			assert_int_not_equal(r, -ENOTSUP);
			assert_null(strstr(err, "built without"));
			continue;
		}
		assert_int_equal(r, -ENOTSUP);
		assert_non_null(strstr(err,
				       "this pmcbench is built without the history's "
				       "PostgreSQL engine; install libpq-dev and build it again "
				       "with -Dpostgresql=enabled"));
		assert_null(strstr(err, "secret")); /* the password stays masked */
		assert_null(strchr(err, '\n'));
		err[0] = 0;
		assert_int_equal(open_close(url, err, sizeof(err)), -ENOTSUP);
		assert_non_null(strstr(err, "-Dpostgresql=enabled"));
	}
}

static void sqlite_paths(void **state)
{
	char dir[] = "/tmp/pmc-engines-XXXXXX", path[64], url[80], err[512];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.sqlite", dir);
	snprintf(url, sizeof(url), "sqlite:%s/s.db", dir);
	for (int i = 0; i < 2; i++) {
		const char *loc = i ? url : path;
		int r;

		err[0] = 0;
		r = pmc_history_engine_check(loc, err, sizeof(err));
		if (PMC_TEST_SQLITE) {
			assert_int_equal(r, 0);
			assert_int_equal(open_close(loc, err, sizeof(err)), 0);
			continue;
		}
		assert_int_equal(r, -ENOTSUP);
		assert_non_null(strstr(err,
				       "this pmcbench is built without the history's SQLite "
				       "engine; install libsqlite3-dev and build it again with "
				       "-Dsqlite=enabled"));
		assert_int_equal(open_close(loc, err, sizeof(err)), -ENOTSUP);
	}
	/* A build without SQLite makes no file. */
	assert_int_equal(access(path, F_OK) == 0, PMC_TEST_SQLITE);
	unlink(path);
	unlink(url + 7);
	assert_int_equal(rmdir(dir), 0);
}

/* Each location goes to the row whose prefix it starts with; any other to SQLite's, the
 * table's last. */
static void rows_by_prefix(void **state)
{
	static const char *const pg[] = {"postgresql://u@h/db", "postgres://h/db"};
	static const char *const files[] = {"sqlite:h.db", "h.db", "/tmp/postgres/h.db",
					    "postgresql:/h.db", "./postgres://h.db"};

	(void)state;
	for (size_t i = 0; i < sizeof(pg) / sizeof(pg[0]); i++)
		assert_string_equal(pmc_hist_kind_of(pg[i])->name, "postgresql");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_string_equal(pmc_hist_kind_of(files[i])->name, "sqlite");
	assert_int_equal(pmc_hist_kind_of("h.db")->engine != NULL, PMC_TEST_SQLITE);
	assert_int_equal(pmc_hist_kind_of("postgres://h/db")->engine != NULL, PMC_TEST_POSTGRESQL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(postgresql_urls),
	    cmocka_unit_test(sqlite_paths),
	    cmocka_unit_test(rows_by_prefix),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests_name("history engines", tests, NULL, NULL);
}
