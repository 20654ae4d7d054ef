/* A SQLite history made by someone else (issue 35): it travels as a CI cache or an
 * artifact. A store whose tables are views, or that holds a trigger, is refused before
 * it is read; a query that never ends is stopped by its budget, and the connection still
 * works after; a sample that is not a finite number, or a count that is not the samples',
 * is a damaged point. A store of an older schema still opens. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers.h"
#include "tests/history_old.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/store_priv.h"

static char workdir[256];
static unsigned ntest;

/* A new store made by pmcbench (the current schema, no entry) at path. */
static void new_store(char *path, size_t len)
{
	struct pmc_history *h = NULL;
	char err[512] = "";

	snprintf(path, len, "%s/h%u.db", workdir, ++ntest);
	if (pmc_history_open(path, PMC_HISTORY_WRITE, &h, err, sizeof(err)) != 0)
		print_error("%s\n", err);
	assert_non_null(h);
	pmc_history_close(h);
}

/* Runs sql on the file behind the history's back, as another program would. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		print_error("%s: %s\n", sql, msg);
	assert_null(msg);
	sqlite3_close(db);
}

/* Opening path for reading fails with want, in one line containing sub. */
static void refused(const char *path, int want, const char *sub)
{
	struct pmc_history *h = NULL;
	char err[512] = "";

	assert_int_equal(pmc_history_open(path, 0, &h, err, sizeof(err)), want);
	assert_null(h);
	assert_contains(err, sub);
	assert_null(strchr(err, '\n'));
}

static void a_view_for_a_table_is_refused_before_it_is_read(void **state)
{
	char path[300];

	new_store(path, sizeof(path));
	/* Read, it would never end (and fill the memory with rows). */
	raw_exec(path, "DROP TABLE pmc_point; CREATE VIEW pmc_point AS WITH RECURSIVE r(i) AS "
		       "(SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT 'e' AS entry, 'b' AS "
		       "benchmark, 'm' AS metric, 'ns' AS unit, 1 AS better, 0 AS simulated, "
		       "1 AS n, 1.0 AS median, '1' AS samples FROM r");
	refused(path, -EBADMSG,
		": not a pmcbench history: 'pmc_point' is a view, where pmcbench keeps a table; "
		"move the file away");
	/* The names of schema 3's series, each point's benchmark and metric. */
	new_store(path, sizeof(path));
	raw_exec(path,
		 "DROP TABLE pmc_name; CREATE VIEW pmc_name AS WITH RECURSIVE r(i) AS "
		 "(SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i AS num, 'b' AS "
		 "benchmark, 'm' AS metric, 'ns' AS unit, 1 AS better, 0 AS simulated FROM r");
	refused(path, -EBADMSG, "'pmc_name' is a view, where pmcbench keeps a table");
}

static void a_trigger_or_a_view_of_its_own_is_refused(void **state)
{
	char path[300];

	new_store(path, sizeof(path));
	raw_exec(path, "CREATE TRIGGER wipe AFTER INSERT ON pmc_entry BEGIN DELETE FROM "
		       "pmc_point; END");
	refused(path, -EBADMSG,
		"it holds the trigger 'wipe' (on 'pmc_entry'), which pmcbench "
		"never makes");
	new_store(path, sizeof(path));
	raw_exec(path, "CREATE VIEW extra AS SELECT * FROM pmc_entry");
	refused(path, -EBADMSG, "it holds the view 'extra'");
	/* One of pmcbench's indexes made a table. */
	new_store(path, sizeof(path));
	raw_exec(path, "DROP INDEX pmc_entry_fp; CREATE TABLE pmc_entry_fp (x)");
	refused(path, -EBADMSG, "'pmc_entry_fp' is a table, where pmcbench keeps an index");
}

/* A store of schema 1 (before pmc_bench) opens, and is read as it is. */
static void a_store_of_schema_1_still_opens(void **state)
{
	struct pmc_history *h = NULL;
	char path[300], err[512] = "";

	new_store(path, sizeof(path));
	for (size_t i = 0; history_old_stmt(i, false); i++)
		raw_exec(path, history_old_stmt(i, false));
	raw_exec(path, "DROP TABLE pmc_bench; DROP INDEX pmc_point_metric; UPDATE pmc_meta SET "
		       "value = '1' WHERE key = 'schema'");
	assert_int_equal(pmc_history_open(path, 0, &h, err, sizeof(err)), 0);
	assert_int_equal(h->schema, 1);
	pmc_history_close(h);
}

static int count_row(void *ud, const char *const *cols, size_t n)
{
	*(long *)ud = n && cols[0] ? atol(cols[0]) : -1;
	return 0;
}

/* A query that never ends (what a view or a default of a hostile store could run) is
 * stopped by the budget of a store of its size, with one line; the connection still
 * answers the next query. */
static void a_query_that_never_ends_is_stopped(void **state)
{
	struct pmc_history *h = NULL;
	char path[300], err[512] = "";
	long count = -1;

	new_store(path, sizeof(path));
	assert_int_equal(pmc_history_open(path, 0, &h, err, sizeof(err)), 0);
	assert_int_equal(h->eng->query(h->db,
				       "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
				       "FROM r) SELECT count(*) FROM r",
				       NULL, 0, count_row, &count, err, sizeof(err)),
			 -ETIME);
	assert_int_equal(count, -1);
	assert_contains(err, ": a query was stopped after 2");
	assert_contains(err, "move it away and add the results again");
	assert_null(strchr(err, '\n'));
	assert_int_equal(h->eng->query(h->db, "SELECT count(*) FROM pmc_entry", NULL, 0, count_row,
				       &count, err, sizeof(err)),
			 0);
	assert_int_equal(count, 0);
	pmc_history_close(h);
}

static int parse(const char *text, double *ret)
{
	const char *c = text;

	return pmc_hist_parse_sample(&c, ret);
}

static void a_sample_must_be_a_finite_number(void **state)
{
	static const char *const bad[] = {"1e400", "-1e400", "nan",   "NaN", "inf", "-infinity",
					  "1.5x",  "12abc",  "nullx", "",    "x"};
	double v;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (parse(bad[i], &v) != -EINVAL)
			fail_msg("'%s' read as a sample (%g)", bad[i], v);
	assert_int_equal(parse("1.5 2", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(parse("null", &v), 0);
	assert_true(isnan(v));
	assert_int_equal(parse("-0", &v), 0);
	assert_true(v == 0 && signbit(v));
	/* The smallest double, as %.17g writes it, is pmcbench's own sample. */
	assert_int_equal(parse("4.9406564584124654e-324", &v), 0);
	assert_true(v > 0);
	assert_int_equal(parse("1.7976931348623157e+308", &v), 0);
	assert_true(isfinite(v));
}

static void a_count_must_be_the_samples(void **state)
{
	assert_true(pmc_hist_count_is("10", 10));
	assert_true(pmc_hist_count_is("0", 0));
	assert_false(pmc_hist_count_is("3", 10));
	assert_false(pmc_hist_count_is("-10", 10));
	assert_false(pmc_hist_count_is("10x", 10));
	assert_false(pmc_hist_count_is("", 0));
	assert_false(pmc_hist_count_is(NULL, 0));
	assert_false(pmc_hist_count_is("18446744073709551626", 10));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_view_for_a_table_is_refused_before_it_is_read),
	    cmocka_unit_test(a_trigger_or_a_view_of_its_own_is_refused),
	    cmocka_unit_test(a_store_of_schema_1_still_opens),
	    cmocka_unit_test(a_query_that_never_ends_is_stopped),
	    cmocka_unit_test(a_sample_must_be_a_finite_number),
	    cmocka_unit_test(a_count_must_be_the_samples),
	};
	char tmpl[] = "/tmp/pmc-history-hostile-XXXXXX", cmd[300];
	int rc;

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(workdir, sizeof(workdir), "%s", tmpl);
	pmc_test_args(argc, argv, tests);
	rc = cmocka_run_group_tests_name("history (hostile SQLite stores)", tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
	if (system(cmd) != 0)
		rc = rc ? rc : 1;
	return rc;
}
