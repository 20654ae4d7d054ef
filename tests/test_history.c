/* The history's store (harness/3-history): ingest is idempotent, samples come back
 * exactly, filters select what they name, a store of a newer schema and a corrupt file
 * are refused without a write, and eight processes adding at once lose and duplicate
 * nothing. On SQLite always; on PostgreSQL too when PMC_TEST_PG_URL names a server
 * (ci/pg-test-server.sh runs this program so in the test_history_pg test), each test
 * on a database of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"
#include <fcntl.h>
#include <signal.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "tests/history_old.h"
#include "history/history.h"
#include "history/store_priv.h"

static const char *pg_base; /* PMC_TEST_PG_URL, or NULL: SQLite */
static char workdir[256];
static unsigned ntest;

struct store {
	char url[512];
};

/* A new, empty store for one test: a file in the work directory, or a new database. */
static void new_store(struct store *s)
{
	ntest++;
	if (!pg_base) {
		snprintf(s->url, sizeof(s->url), "%s/h%u.db", workdir, ntest);
		return;
	}
	{
		PGconn *c = PQconnectdb(pg_base);
		char sql[128];
		PGresult *res;
		const char *slash = strrchr(pg_base, '/');

		assert_int_equal(PQstatus(c), CONNECTION_OK);
		snprintf(sql, sizeof(sql), "CREATE DATABASE pmc_t%d_%u", (int)getpid(), ntest);
		res = PQexec(c, sql);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			print_error("%s\n", PQerrorMessage(c));
		assert_int_equal(PQresultStatus(res), PGRES_COMMAND_OK);
		PQclear(res);
		PQfinish(c);
		snprintf(s->url, sizeof(s->url), "%.*s/pmc_t%d_%u", (int)(slash - pg_base), pg_base,
			 (int)getpid(), ntest);
	}
}

/* Runs sql on the store behind the history's back. */
static void raw_exec(const struct store *s, const char *sql)
{
	if (!pg_base) {
		sqlite3 *db;

		assert_int_equal(sqlite3_open(s->url, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
	} else {
		PGconn *c = PQconnectdb(s->url);
		PGresult *res = PQexec(c, sql);

		assert_int_equal(PQresultStatus(res), PGRES_COMMAND_OK);
		PQclear(res);
		PQfinish(c);
	}
}

static struct pmc_history *open_ok(const struct store *s, unsigned flags)
{
	struct pmc_history *h = NULL;
	char err[512] = "";

	if (pmc_history_open(s->url, flags, &h, err, sizeof(err)) != 0)
		print_error("%s\n", err);
	assert_non_null(h);
	return h;
}

/* A result of two benchmarks measured at `created`, its samples shifted by x. */
static struct pmc_result *make_result(const char *created, const char *host, double x)
{
	struct pmc_result *r = t_result("perf");
	const double a[] = {10 + x, 11 + x, NAN, 12.25 + x};
	const double b[] = {0.1 + x, 0.2 + x, 0.30000000000000004 + x, 1e-300};

	free(r->created);
	r->created = strdup(created);
	assert_int_equal(pmc_result_set_env(r, "hostname", host), 0);
	assert_int_equal(pmc_result_set_env(r, "kernel", "Linux 6.1.0"), 0);
	assert_int_equal(pmc_result_set_env(r, "cpu-model", "Test CPU"), 0);
	put_values(r, "work", "task-clock", a, 4);
	put_values(r, "work", "wall-time", b, 4);
	put_values(r, "sleep", "wall-time", b, 4);
	return r;
}

static size_t count_entries(struct pmc_history *h, const struct pmc_history_filter *f)
{
	struct pmc_history_entry *es = NULL;
	size_t n = 0;
	char err[512] = "";

	if (pmc_history_list(h, f, &es, &n, err, sizeof(err)) != 0)
		print_error("%s\n", err);
	pmc_history_entries_free(es, n);
	return n;
}

static void add_ok(struct pmc_history *h, const struct pmc_result *r,
		   const struct pmc_history_meta *meta, bool expect_added)
{
	bool added = !expect_added;
	char err[512] = "";

	if (pmc_history_add(h, r, meta, &added, NULL, err, sizeof(err)) != 0)
		print_error("%s\n", err);
	assert_int_equal(added, expect_added);
}

static void ingest_twice_is_one_entry(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r = make_result("2026-01-02T03:04:05Z", "m1", 0);
	const char *tags[] = {"runner=ci", "os=debian"};
	struct pmc_history_meta meta = {
	    .commit = "abc123", .branch = "main", .tags = tags, .ntags = 2};
	struct pmc_history_entry *es = NULL;
	size_t n = 0;
	char err[512];

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r, &meta, true);
	meta.commit = "def456"; /* the same content under another commit is still one entry */
	add_ok(h, r, &meta, false);
	pmc_history_close(h);
	h = open_ok(&s, 0);
	assert_int_equal(pmc_history_list(h, NULL, &es, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(es[0].commit, "abc123");
	assert_string_equal(es[0].branch, "main");
	assert_string_equal(es[0].machine, "m1");
	assert_string_equal(es[0].backend, "perf");
	assert_string_equal(es[0].tags, "os=debian,runner=ci");
	assert_int_equal(es[0].t, 1767323045);
	pmc_history_entries_free(es, n);
	pmc_history_close(h);
	pmc_result_free(r);
}

static void samples_come_back_exactly(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r = make_result("2026-01-02T03:04:05Z", "m1", 0);
	struct pmc_history_filter f = {.benchmark = "work", .metric = "task-clock"};
	struct pmc_history_point *ps = NULL;
	const struct pmc_metric *m = pmc_benchmark_find_metric(&r->benchmarks[0], "task-clock");
	const struct pmc_metric *w = pmc_benchmark_find_metric(&r->benchmarks[0], "wall-time");
	size_t n = 0;
	char err[512];

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r, NULL, true);
	assert_int_equal(pmc_history_points(h, &f, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ps[0].unit, m->unit);
	assert_int_equal(ps[0].better, m->better);
	assert_int_equal(ps[0].n, 4);
	assert_true(isnan(ps[0].samples[2]));
	assert_true(ps[0].samples[3] == 12.25);
	assert_true(ps[0].median == 11); /* of 10, 11, 12.25 */
	pmc_history_points_free(ps, n);
	f.metric = "wall-time";
	assert_int_equal(pmc_history_points(h, &f, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	for (size_t i = 0; i < 4; i++)
		assert_memory_equal(&ps[0].samples[i], &w->values[i], sizeof(double));
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	pmc_result_free(r);
}

/* Points go in one bulk insert (PostgreSQL: COPY, sent 64 KiB at a time): 4,000 of them,
 * many chunks and a short last one, all there with their samples. */
static void many_points_all_arrive(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r = t_result("perf");
	struct pmc_history_point *ps = NULL;
	size_t n = 0;
	char err[512] = "", name[32];

	for (int i = 0; i < 2000; i++) {
		const double v[] = {i, i + 0.5};

		snprintf(name, sizeof(name), "b%04d", i);
		put_values(r, name, "wall-time", v, 2);
		put_values(r, name, "task-clock", v, 1);
	}
	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r, NULL, true);
	assert_int_equal(pmc_history_points(h, NULL, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4000);
	for (size_t i = 0; i < n; i++) {
		int b = atoi(ps[i].benchmark + 1);

		assert_int_equal(ps[i].n, strcmp(ps[i].metric, "wall-time") == 0 ? 2 : 1);
		assert_true(ps[i].samples[0] == b);
		if (ps[i].n == 2)
			assert_true(ps[i].samples[1] == b + 0.5);
	}
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	pmc_result_free(r);
}

/* Names are data in a bulk insert too: the characters COPY's text format escapes (tab,
 * newline, carriage return, backslash, "\N" that stands for NULL, "\." that ends the
 * data) come back as they were, in benchmark names, the environment and tags. */
static void names_with_copy_escapes_come_back(void **state)
{
	static const char *const names[] = {"a\tb", "a\nb", "a\rb", "a\\b", "\\N", "\\."};
	const size_t nnames = sizeof(names) / sizeof(names[0]);
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r = t_result("perf");
	const char *tags[] = {"k=\\N\t\\."};
	struct pmc_history_meta meta = {.tags = tags, .ntags = 1};
	struct pmc_history_point *ps = NULL;
	struct pmc_history_entry *es = NULL;
	struct pmc_history_filter f = {0};
	size_t n = 0;
	char err[512] = "";

	for (size_t i = 0; i < nnames; i++) {
		const double v[] = {(double)i};

		put_values(r, names[i], "wall-time", v, 1);
	}
	assert_int_equal(pmc_result_set_env(r, "hostname", "tab\there\\N"), 0);
	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r, &meta, true);
	for (size_t i = 0; i < nnames; i++) {
		f.benchmark = names[i];
		assert_int_equal(pmc_history_points(h, &f, &ps, &n, err, sizeof(err)), 0);
		assert_int_equal(n, 1);
		assert_string_equal(ps[0].benchmark, names[i]);
		assert_true(ps[0].samples[0] == (double)i);
		pmc_history_points_free(ps, n);
	}
	assert_int_equal(pmc_history_list(h, NULL, &es, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(es[0].machine, "tab\there\\N");
	assert_string_equal(es[0].tags, "k=\\N\t\\.");
	pmc_history_entries_free(es, n);
	pmc_history_close(h);
	pmc_result_free(r);
}

/* The text of a number in the content hash and the stored samples is printf's "%.17g"
 * byte for byte, also where it is written without printf: an entry's key never changes. */
static void number_text_is_printf_17g(void **state)
{
	static const double special[] = {0.0,
					 -0.0,
					 1,
					 -1,
					 9,
					 10,
					 2025764,
					 -2025764,
					 9007199254740991.0,
					 9007199254740992.0,
					 9007199254740993.0,
					 -9007199254740991.0,
					 1e15,
					 1e16,
					 1e17,
					 1e22,
					 0.5,
					 0.1,
					 1e-300,
					 4.9e-324,
					 1.7976931348623157e308,
					 123456789012.25};
	char got[32], want[32];
	uint64_t x = 88172645463325252u;

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		snprintf(want, sizeof(want), "%.17g", special[i]);
		assert_int_equal(pmc_hist_num_text(got, special[i]), strlen(want));
		assert_string_equal(got, want);
	}
	/* Whole numbers of every size, and doubles of any bits (xorshift64). */
	for (int i = 0; i < 200000; i++) {
		double v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i % 2)
			v = (double)(int64_t)(x >> (x % 64)) * (x & 1 ? -1 : 1);
		else
			memcpy(&v, &x, sizeof(v));
		if (isnan(v))
			continue;
		snprintf(want, sizeof(want), "%.17g", v);
		assert_int_equal(pmc_hist_num_text(got, v), strlen(want));
		assert_string_equal(got, want);
	}
}

/* What a reader of series saw: the series in order, each checked against its points. */
struct seen {
	size_t nseries, npoints, stop_at;
	char last[128];
};

static int see_series(void *ud, const struct pmc_history_point *ps, size_t n)
{
	struct seen *sn = ud;
	char key[128];

	assert_true(n > 0);
	snprintf(key, sizeof(key), "%s|%s|%s", ps[0].benchmark, ps[0].metric, ps[0].e.fingerprint);
	/* Series come once each, in the order of their names. */
	assert_true(strcmp(sn->last, key) < 0);
	snprintf(sn->last, sizeof(sn->last), "%s", key);
	for (size_t i = 1; i < n; i++) {
		assert_true(pmc_history_same_series(&ps[0], &ps[i]));
		assert_true(ps[i - 1].e.t <= ps[i].e.t);
	}
	sn->npoints += n;
	return ++sn->nseries == sn->stop_at ? -EINTR : 0;
}

/* The store read series by series gives every point that pmc_history_points gives, one
 * series a call, its entries' strings kept after the points go; a one-sample point (its
 * sample kept as its median) and one not measured come back as they went in; a reader
 * that stops stops the read with its error. */
static void series_are_read_one_at_a_time(void **state)
{
	static const double one[] = {1234.5}, none[] = {NAN};
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r[3];
	struct pmc_history_point *ps = NULL;
	struct pmc_history_entry *es = NULL;
	struct seen sn = {0};
	size_t n = 0, nes = 0;
	char err[512] = "", created[32];

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	for (int i = 0; i < 3; i++) {
		snprintf(created, sizeof(created), "2026-01-0%dT00:00:00Z", 3 - i);
		r[i] = make_result(created, i == 1 ? "m2" : "m1", i);
		put_values(r[i], "work", "one", one, 1);
		put_values(r[i], "work", "unmeasured", none, 1);
		add_ok(h, r[i], NULL, true);
	}
	assert_int_equal(pmc_history_points(h, NULL, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(pmc_history_series(h, NULL, see_series, &sn, &es, &nes, err, sizeof(err)),
			 0);
	assert_int_equal(sn.npoints, n);
	/* 5 metrics of work and sleep on 2 fingerprints, m2 with one entry of each. */
	assert_int_equal(sn.nseries, 10);
	assert_int_equal(nes, 3);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(ps[i].metric, "one") == 0) {
			assert_int_equal(ps[i].n, 1);
			assert_true(ps[i].samples[0] == 1234.5 && ps[i].median == 1234.5);
		} else if (strcmp(ps[i].metric, "unmeasured") == 0) {
			assert_int_equal(ps[i].n, 1);
			assert_true(isnan(ps[i].samples[0]) && isnan(ps[i].median));
		}
	}
	pmc_history_entries_free(es, nes);
	pmc_history_points_free(ps, n);
	memset(&sn, 0, sizeof(sn));
	sn.stop_at = 2;
	assert_int_equal(pmc_history_series(h, NULL, see_series, &sn, NULL, NULL, err, sizeof(err)),
			 -EINTR);
	assert_int_equal(sn.nseries, 2);
	/* The store still reads after a stopped read (its transaction ended). */
	assert_int_equal(count_entries(h, NULL), 3);
	pmc_history_close(h);
	for (int i = 0; i < 3; i++)
		pmc_result_free(r[i]);
}

static void filters_select_what_they_name(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r1 = make_result("2026-01-01T00:00:00Z", "m1", 0);
	struct pmc_result *r2 = make_result("2026-01-02T00:00:00Z", "m1", 1);
	struct pmc_result *r3 = make_result("2026-01-03T00:00:00Z", "m2", 2);
	struct pmc_history_meta m1 = {.commit = "aaaa1111", .branch = "main"};
	struct pmc_history_meta m2 = {.commit = "bbbb2222", .branch = "topic"};
	/* A commit by the name it was added with, not a SHA: selected by that name. */
	struct pmc_history_meta m3 = {.commit = "v1.2", .branch = "main"};
	struct pmc_history_filter f = {0};
	struct pmc_history_point *ps = NULL;
	struct pmc_history_entry *es = NULL;
	size_t n = 0;
	char err[512] = "";

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r3, &m3, true);
	add_ok(h, r1, &m1, true);
	add_ok(h, r2, &m2, true);
	assert_int_equal(count_entries(h, NULL), 3);
	f.branch = "main";
	assert_int_equal(count_entries(h, &f), 2);
	f.branch = NULL;
	f.machine = "m2";
	assert_int_equal(count_entries(h, &f), 1);
	f.machine = NULL;
	f.commit_from = "bbbb";
	assert_int_equal(count_entries(h, &f), 2);
	f.commit_to = "bbbb2222";
	assert_int_equal(count_entries(h, &f), 1);
	f.commit_from = f.commit_to = NULL;
	f.since = 1767225600 + 86400; /* 2026-01-02 */
	assert_int_equal(count_entries(h, &f), 2);
	f.since = 0;
	f.commit_from = "dddd";
	assert_int_equal(pmc_history_list(h, &f, &es, &n, err, sizeof(err)), -ENOENT);
	assert_contains(err, "no entry measured commit dddd");
	f.commit_from = "v1.2";
	assert_int_equal(count_entries(h, &f), 1);
	f.commit_from = "aaaa";
	f.commit_to = "v1.2";
	assert_int_equal(count_entries(h, &f), 3);
	f.commit_to = NULL;
	/* Only a SHA's hex digits are a prefix: "v1" names no commit. */
	f.commit_from = "v1";
	assert_int_equal(pmc_history_list(h, &f, &es, &n, err, sizeof(err)), -ENOENT);
	assert_contains(err, "no entry measured commit v1;");
	/* A name is data: quotes and wildcards match themselves. */
	f.commit_from = "x' OR 1=1 --";
	assert_int_equal(pmc_history_list(h, &f, &es, &n, err, sizeof(err)), -ENOENT);
	f.commit_from = "%";
	assert_int_equal(pmc_history_list(h, &f, &es, &n, err, sizeof(err)), -ENOENT);
	f.commit_from = "";
	assert_int_equal(pmc_history_list(h, &f, &es, &n, err, sizeof(err)), -EINVAL);
	/* Names are data: a quote in a filter matches nothing and breaks nothing. */
	memset(&f, 0, sizeof(f));
	f.benchmark = "work' OR '1'='1";
	assert_int_equal(count_entries(h, &f), 0);
	/* Points: by series, oldest first; m2's are a series of their own. */
	f.benchmark = "work";
	f.metric = "task-clock";
	assert_int_equal(pmc_history_points(h, &f, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_true(pmc_history_same_series(&ps[0], &ps[1]) !=
		    pmc_history_same_series(&ps[1], &ps[2]));
	for (size_t i = 0; i + 1 < n; i++)
		if (pmc_history_same_series(&ps[i], &ps[i + 1]))
			assert_true(ps[i].e.t < ps[i + 1].e.t);
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	pmc_result_free(r1);
	pmc_result_free(r2);
	pmc_result_free(r3);
}

static void baseline_pools_the_last_k(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *rs[4], *base = NULL;
	struct pmc_benchmark *b;
	size_t n = 0;
	char err[512] = "", created[32];

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	for (int i = 0; i < 4; i++) {
		snprintf(created, sizeof(created), "2026-01-0%dT00:00:00Z", i + 1);
		rs[i] = make_result(created, "m1", i);
		add_ok(h, rs[i], NULL, true);
	}
	/* The newest is the one gated: the two before it are the baseline. */
	assert_int_equal(
	    pmc_history_baseline(h, rs[3], NULL, NULL, 2, NULL, 0, &base, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_non_null(base);
	b = pmc_result_find_benchmark(base, "work");
	assert_non_null(b);
	assert_int_equal(b->nruns, 8);
	assert_int_equal(b->runs[0].process, 1);
	assert_int_equal(b->runs[7].process, 2);
	/* Oldest first: entry 2 (x = 1), then entry 3 (x = 2). */
	assert_true(pmc_benchmark_find_metric(b, "task-clock")->values[0] == 11);
	assert_true(pmc_benchmark_find_metric(b, "task-clock")->values[4] == 12);
	pmc_result_free(base);
	/* Another machine has no history. */
	pmc_result_set_env(rs[3], "hostname", "elsewhere");
	base = NULL;
	assert_int_equal(
	    pmc_history_baseline(h, rs[3], NULL, NULL, 2, NULL, 0, &base, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_null(base);
	pmc_history_close(h);
	for (int i = 0; i < 4; i++)
		pmc_result_free(rs[i]);
}

/* The values of task-clock in the baseline of r's last k entries: the x of each
 * entry, oldest first (make_result's first sample is 10 + x), into xs. */
static size_t baseline_xs(struct pmc_history *h, const struct pmc_result *r, size_t k, double *xs)
{
	struct pmc_result *base = NULL;
	const struct pmc_metric *m;
	size_t n = 0;
	char err[512] = "";

	if (pmc_history_baseline(h, r, NULL, NULL, k, NULL, 0, &base, &n, err, sizeof(err)) != 0)
		print_error("%s\n", err);
	assert_non_null(base);
	m = pmc_benchmark_find_metric(pmc_result_find_benchmark(base, "work"), "task-clock");
	assert_non_null(m);
	assert_int_equal(m->n, 4 * n);
	for (size_t i = 0; i < n; i++)
		xs[i] = m->values[4 * i] - 10;
	pmc_result_free(base);
	return n;
}

/* A machine's last entries among another's give its entries only, whether they are
 * numbered far apart (read one by one) or close together (read over their range, the
 * other's among them). */
static void baseline_of_one_machine_among_others(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r;
	double xs[4];
	char created[32];

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	/* m1 and m2 in turn (m1 x = 0 .. 3, m2 x = 100 ..), then 20 of m2, then m1 x = 4. */
	for (int i = 0; i < 29; i++) {
		bool m1 = (i < 8 && i % 2 == 0) || i == 28;

		snprintf(created, sizeof(created), "2026-01-%02dT%02d:00:00Z", 1 + i / 24, i % 24);
		r = make_result(created, m1 ? "m1" : "m2", m1 ? (i == 28 ? 4 : i / 2) : 100 + i);
		add_ok(h, r, NULL, true);
		pmc_result_free(r);
	}
	r = make_result("2026-02-01T00:00:00Z", "m1", 50);
	assert_int_equal(baseline_xs(h, r, 4, xs), 4); /* x 1 .. 4: entries 3 .. 29 */
	for (int i = 0; i < 4; i++)
		assert_true(xs[i] == 1 + i);
	assert_int_equal(baseline_xs(h, r, 2, xs), 2); /* x 3, 4: entries 7 and 29 */
	assert_true(xs[0] == 3 && xs[1] == 4);
	pmc_result_free(r);
	pmc_history_close(h);
	/* Before the 20: m1's entries 1, 3, 5 numbered among m2's 2, 4. */
	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	for (int i = 0; i < 6; i++) {
		snprintf(created, sizeof(created), "2026-01-01T%02d:00:00Z", i);
		r = make_result(created, i % 2 == 0 ? "m1" : "m2", i % 2 == 0 ? i / 2 : 100 + i);
		add_ok(h, r, NULL, true);
		pmc_result_free(r);
	}
	r = make_result("2026-02-01T00:00:00Z", "m1", 50);
	assert_int_equal(baseline_xs(h, r, 3, xs), 3);
	for (int i = 0; i < 3; i++)
		assert_true(xs[i] == i);
	pmc_result_free(r);
	pmc_history_close(h);
}

/* The baseline of a series with a step holds the level since the step only, and was
 * created when its newest entry was measured (not when it was pooled). */
static void baseline_is_the_current_level(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *rs[41], *base = NULL;
	const struct pmc_metric *m;
	struct pmc_benchmark *b;
	size_t n = 0;
	char err[512] = "", created[32];

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	for (int i = 0; i < 41; i++) {
		snprintf(created, sizeof(created), "2026-02-%02dT00:00:00Z", i / 2 + 1);
		created[18] = i % 2 ? '1' : '0';
		rs[i] = make_result(created, "m1", (i < 20 ? 0 : 100) + 0.001 * i);
		add_ok(h, rs[i], NULL, true);
	}
	assert_int_equal(
	    pmc_history_baseline(h, rs[40], NULL, NULL, 40, NULL, 0, &base, &n, err, sizeof(err)),
	    0);
	assert_int_equal(n, 40);
	assert_string_equal(base->created, rs[39]->created);
	b = pmc_result_find_benchmark(base, "work");
	assert_int_equal(b->nruns, 160);
	m = pmc_benchmark_find_metric(b, "task-clock");
	/* Entries 1-20 were the old level: not measured here; 21-40 are. */
	for (size_t i = 0; i < 160; i++)
		if (i % 4 != 2)
			assert_true(i < 80 ? isnan(m->values[i]) : m->values[i] > 100);
	/* Ten entries, all at the new level: all taken. */
	pmc_result_free(base);
	assert_int_equal(
	    pmc_history_baseline(h, rs[40], NULL, NULL, 10, NULL, 0, &base, &n, err, sizeof(err)),
	    0);
	m = pmc_benchmark_find_metric(pmc_result_find_benchmark(base, "work"), "task-clock");
	assert_true(m->values[0] > 100 && m->values[36] > 100);
	pmc_result_free(base);
	pmc_history_close(h);
	for (int i = 0; i < 41; i++)
		pmc_result_free(rs[i]);
}

/* A bad run removed: its entry, points, benchmarks, environment and tags are gone, the
 * others stay; a key of nothing, of several or not hex is refused without a write; the
 * same result added again is an entry again. */
static void remove_takes_out_one_entry(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r1 = make_result("2026-03-01T00:00:00Z", "m1", 0);
	struct pmc_result *r2 = make_result("2026-03-02T00:00:00Z", "m1", 50);
	struct pmc_history_meta m2 = {
	    .commit = "v2.0", .tags = (const char *[]){"bad=yes"}, .ntags = 1};
	struct pmc_history_filter f = {.benchmark = "work", .metric = "task-clock"};
	struct pmc_history_point *ps = NULL;
	char id[65], got[65], err[512] = "", *commit = NULL;
	int64_t t = 0;
	size_t n = 0;
	bool added;

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r1, NULL, true);
	assert_int_equal(pmc_history_add(h, r2, &m2, &added, id, err, sizeof(err)), 0);
	assert_true(added);
	assert_int_equal(pmc_history_remove(h, "zz12", got, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(
	    pmc_history_remove(h, "0000000000000000", got, NULL, NULL, err, sizeof(err)), -ENOENT);
	assert_contains(err, "holds no entry 0000000000000000");
	assert_int_equal(count_entries(h, NULL), 2);
	id[12] = '\0';
	assert_int_equal(pmc_history_remove(h, id, got, &commit, &t, err, sizeof(err)), 0);
	assert_memory_equal(got, id, 12);
	assert_string_equal(commit, "v2.0");
	assert_int_equal(t, 1772409600); /* 2026-03-02 */
	free(commit);
	assert_int_equal(count_entries(h, NULL), 1);
	assert_int_equal(pmc_history_points(h, &f, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_true(ps[0].median < 50);
	pmc_history_points_free(ps, n);
	f = (struct pmc_history_filter){.tags = (const char *[]){"bad=yes"}, .ntags = 1};
	assert_int_equal(count_entries(h, &f), 0);
	add_ok(h, r2, &m2, true);
	assert_int_equal(count_entries(h, NULL), 2);
	assert_int_equal(count_entries(h, &f), 1);
	pmc_history_close(h);
	pmc_result_free(r1);
	pmc_result_free(r2);
}

/* Two metrics hold the same samples, NAN where the other has NAN. */
/* A copy of the file from at to. */
static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void same_values(const struct pmc_metric *a, const struct pmc_metric *b)
{
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_true(isnan(a->values[i]) ? isnan(b->values[i])
						: a->values[i] == b->values[i]);
}

/* A baseline of some metrics holds every benchmark with its runs and those metrics'
 * samples as a baseline of all does; a pattern that matches nothing reads them all; a
 * store of schema 1 gives the same read as it is and after its migration. */
static void baseline_reads_the_metrics_asked(void **state)
{
	static const char *const tc[] = {"task-clock"}, *const none[] = {"nosuch"};
	struct store s;
	struct pmc_history *h;
	struct pmc_result *rs[4], *all = NULL, *some = NULL;
	size_t n = 0, m = 0;
	char err[512] = "", created[32];

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	for (int i = 0; i < 4; i++) {
		snprintf(created, sizeof(created), "2026-01-0%dT00:00:00Z", i + 1);
		rs[i] = make_result(created, "m1", i);
		add_ok(h, rs[i], NULL, true);
	}
	assert_int_equal(
	    pmc_history_baseline(h, rs[3], NULL, NULL, 3, NULL, 0, &all, &n, err, sizeof(err)), 0);
	assert_int_equal(
	    pmc_history_baseline(h, rs[3], NULL, NULL, 3, tc, 1, &some, &m, err, sizeof(err)), 0);
	assert_int_equal(m, n);
	assert_int_equal(some->nbench, all->nbench);
	for (size_t i = 0; i < all->nbench; i++) {
		assert_string_equal(some->benchmarks[i].name, all->benchmarks[i].name);
		assert_int_equal(some->benchmarks[i].nruns, all->benchmarks[i].nruns);
	}
	same_values(
	    pmc_benchmark_find_metric(pmc_result_find_benchmark(some, "work"), "task-clock"),
	    pmc_benchmark_find_metric(pmc_result_find_benchmark(all, "work"), "task-clock"));
	assert_null(
	    pmc_benchmark_find_metric(pmc_result_find_benchmark(some, "work"), "wall-time"));
	assert_int_equal(pmc_result_find_benchmark(some, "sleep")->nmetrics, 0);
	pmc_result_free(some);
	some = NULL;
	assert_int_equal(
	    pmc_history_baseline(h, rs[3], NULL, NULL, 3, none, 1, &some, &m, err, sizeof(err)), 0);
	same_values(
	    pmc_benchmark_find_metric(pmc_result_find_benchmark(some, "sleep"), "wall-time"),
	    pmc_benchmark_find_metric(pmc_result_find_benchmark(all, "sleep"), "wall-time"));
	pmc_result_free(some);
	pmc_history_close(h);

	/* Schema 2, the layout before issue 36 (every row names its entry by its key, each
	 * point's samples text), and schema 1, without pmc_bench: read as they are, and
	 * migrated by a writer; the baseline is the same. */
	for (size_t i = 0; history_old_stmt(i, pg_base); i++)
		raw_exec(&s, history_old_stmt(i, pg_base));
	for (int v = 2; v >= 1; v--) {
		char copy[600];

		if (v == 1) {
			raw_exec(&s, "DROP INDEX pmc_point_metric");
			raw_exec(&s, "DROP TABLE pmc_bench");
			raw_exec(&s, "UPDATE pmc_meta SET value = '1' WHERE key = 'schema'");
		}
		h = open_ok(&s, 0);
		assert_int_equal(h->schema, v);
		some = NULL;
		assert_int_equal(pmc_history_baseline(h, rs[3], NULL, NULL, 3, tc, 1, &some, &m,
						      err, sizeof(err)),
				 0);
		assert_int_equal(m, n);
		same_values(pmc_benchmark_find_metric(pmc_result_find_benchmark(some, "work"),
						      "task-clock"),
			    pmc_benchmark_find_metric(pmc_result_find_benchmark(all, "work"),
						      "task-clock"));
		pmc_result_free(some);
		pmc_history_close(h);
		if (pg_base)
			continue;
		/* A writer of a copy migrates it (the original stays, for schema 1). */
		snprintf(copy, sizeof(copy), "%s.copy", s.url);
		copy_file(s.url, copy);
		assert_int_equal(pmc_history_open(copy, PMC_HISTORY_WRITE, &h, err, sizeof(err)),
				 0);
		assert_int_equal(h->schema, PMC_HISTORY_SCHEMA);
		pmc_history_close(h);
		assert_int_equal(pmc_history_open(copy, 0, &h, err, sizeof(err)), 0);
		assert_int_equal(h->schema, PMC_HISTORY_SCHEMA);
		some = NULL;
		assert_int_equal(pmc_history_baseline(h, rs[3], NULL, NULL, 3, NULL, 0, &some, &m,
						      err, sizeof(err)),
				 0);
		assert_int_equal(m, n);
		for (size_t i = 0; i < all->nbench; i++)
			for (size_t k = 0; k < all->benchmarks[i].nmetrics; k++)
				same_values(
				    pmc_benchmark_find_metric(
					pmc_result_find_benchmark(some, all->benchmarks[i].name),
					all->benchmarks[i].metrics[k].id),
				    &all->benchmarks[i].metrics[k]);
		pmc_result_free(some);
		pmc_history_close(h);
		unlink(copy);
	}
	for (unsigned flags = 0; flags <= PMC_HISTORY_WRITE; flags += PMC_HISTORY_WRITE) {
		h = open_ok(&s, flags);
		some = NULL;
		assert_int_equal(pmc_history_baseline(h, rs[3], NULL, NULL, 3, tc, 1, &some, &m,
						      err, sizeof(err)),
				 0);
		assert_int_equal(m, n);
		assert_int_equal(pmc_result_find_benchmark(some, "sleep")->nruns,
				 pmc_result_find_benchmark(all, "sleep")->nruns);
		same_values(pmc_benchmark_find_metric(pmc_result_find_benchmark(some, "work"),
						      "task-clock"),
			    pmc_benchmark_find_metric(pmc_result_find_benchmark(all, "work"),
						      "task-clock"));
		pmc_result_free(some);
		pmc_history_close(h);
	}
	pmc_result_free(all);
	for (int i = 0; i < 4; i++)
		pmc_result_free(rs[i]);
}

/* The bytes of a file, to show that nothing was written. */
static char *slurp(const char *path, size_t *ret_n)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*ret_n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void newer_schema_is_refused(void **state)
{
	struct store s;
	struct pmc_history *h = NULL;
	struct pmc_result *r = make_result("2026-01-02T03:04:05Z", "m1", 0);
	char err[512] = "", *before = NULL, *after;
	size_t nb = 0, na;

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r, NULL, true);
	pmc_history_close(h);
	raw_exec(&s, "UPDATE pmc_meta SET value = '99' WHERE key = 'schema'");
	if (!pg_base)
		before = slurp(s.url, &nb);
	h = NULL;
	assert_int_equal(pmc_history_open(s.url, PMC_HISTORY_WRITE, &h, err, sizeof(err)),
			 -EPROTONOSUPPORT);
	assert_null(h);
	assert_contains(err, "schema 99 is newer than this pmcbench's (3)");
	assert_null(strchr(err, '\n'));
	assert_int_equal(pmc_history_open(s.url, 0, &h, err, sizeof(err)), -EPROTONOSUPPORT);
	if (!pg_base) {
		after = slurp(s.url, &na);
		assert_int_equal(na, nb);
		assert_memory_equal(after, before, nb);
		free(after);
		free(before);
	}
	pmc_result_free(r);
}

static void corrupt_file_is_refused(void **state)
{
	struct store s;
	struct pmc_history *h = NULL;
	char err[512] = "", *after;
	const char junk[] = "this is not a database, but it is long enough to look like a "
			    "header of one: 0123456789abcdef0123456789abcdef0123456789abcdef";
	size_t na;
	FILE *f;

	if (pg_base)
		skip(); /* a file of the SQLite engine */
	new_store(&s);
	f = fopen(s.url, "wb");
	assert_non_null(f);
	for (int i = 0; i < 64; i++)
		fwrite(junk, 1, sizeof(junk) - 1, f);
	fclose(f);
	assert_int_equal(pmc_history_open(s.url, PMC_HISTORY_WRITE, &h, err, sizeof(err)), -EINVAL);
	assert_null(h);
	assert_contains(err, "not a readable SQLite database");
	assert_contains(err, "move the damaged file away");
	after = slurp(s.url, &na);
	assert_int_equal(na, 64 * (sizeof(junk) - 1));
	assert_memory_equal(after, junk, sizeof(junk) - 1);
	free(after);
}

/* A SQLite file of another program is left alone: no tables of ours added to it. */
static void database_of_another_program_is_refused(void **state)
{
	struct store s;
	struct pmc_history *h = NULL;
	char err[512] = "";
	size_t nb, na;
	char *before, *after;

	if (pg_base)
		skip(); /* a PostgreSQL database may be shared with other programs */
	new_store(&s);
	raw_exec(&s, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
	before = slurp(s.url, &nb);
	assert_int_equal(pmc_history_open(s.url, PMC_HISTORY_WRITE, &h, err, sizeof(err)), -EINVAL);
	assert_contains(err, "a database of another program (1 tables, none of them pmcbench's)");
	after = slurp(s.url, &na);
	assert_int_equal(na, nb);
	assert_memory_equal(after, before, nb);
	free(before);
	free(after);
}

static void missing_store_is_not_made_by_a_read(void **state)
{
	struct store s;
	struct pmc_history *h = NULL;
	char err[512] = "";

	if (pg_base) {
		new_store(&s); /* an empty database: no tables */
		assert_int_equal(pmc_history_open(s.url, 0, &h, err, sizeof(err)), -ENOENT);
		assert_contains(err, "no history there");
		return;
	}
	snprintf(s.url, sizeof(s.url), "%s/none.db", workdir);
	assert_int_equal(pmc_history_open(s.url, 0, &h, err, sizeof(err)), -ENOENT);
	assert_contains(err, "no history there");
	assert_int_equal(access(s.url, F_OK), -1);
}

static void password_is_never_shown(void **state)
{
	struct pmc_history *h = NULL;
	char err[512] = "";

	/* Port 1 on the loopback: nothing listens there. */
	assert_int_equal(pmc_history_open("postgresql://u:s3cret@127.0.0.1:1/db?sslmode=disable", 0,
					  &h, err, sizeof(err)),
			 -ECONNREFUSED);
	assert_contains(err, "postgresql://u:***@127.0.0.1:1/db");
	assert_contains(err, "cannot connect");
	assert_null(strstr(err, "s3cret"));
	assert_int_equal(pmc_history_open("postgresql://127.0.0.1:1/db?password=s3cret&user=u", 0,
					  &h, err, sizeof(err)),
			 -ECONNREFUSED);
	assert_contains(err, "password=***&user=u");
	assert_null(strstr(err, "s3cret"));
}

static void wrong_password_is_refused(void **state)
{
	struct pmc_history *h = NULL;
	char err[512] = "", url[512];
	const char *at = pg_base ? strchr(pg_base, '@') : NULL;

	if (!at)
		skip();
	snprintf(url, sizeof(url), "postgresql://pmc:wrong-pw%s", at);
	assert_int_equal(pmc_history_open(url, PMC_HISTORY_WRITE, &h, err, sizeof(err)), -EACCES);
	assert_contains(err, "refused the credentials");
	assert_contains(err, "PGPASSWORD");
	assert_null(strstr(err, "wrong-pw"));
	assert_null(strchr(err, '\n'));
}

/* A writer killed inside its transaction: the store keeps what was committed before,
 * and the next writer goes on. */
static void writer_killed_mid_transaction_leaves_it_consistent(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_result *r1 = make_result("2026-03-01T00:00:00Z", "m1", 0);
	struct pmc_result *r2 = make_result("2026-03-02T00:00:00Z", "m1", 1);
	int status;
	pid_t pid;

	new_store(&s);
	h = open_ok(&s, PMC_HISTORY_WRITE);
	add_ok(h, r1, NULL, true);
	pmc_history_close(h);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *sql = "INSERT INTO pmc_entry (id, t, added, fingerprint, backend) "
				  "VALUES ('half', 1, 1, 'x', 'perf')";

		if (!pg_base) {
			sqlite3 *db;

			if (sqlite3_open(s.url, &db) != SQLITE_OK ||
			    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
			    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
				_exit(1);
		} else {
			PGconn *c = PQconnectdb(s.url);

			PQclear(PQexec(c, "BEGIN"));
			if (PQresultStatus(PQexec(c, sql)) != PGRES_COMMAND_OK)
				_exit(1);
		}
		raise(SIGKILL);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	h = open_ok(&s, PMC_HISTORY_WRITE);
	assert_int_equal(count_entries(h, NULL), 1);
	add_ok(h, r2, NULL, true);
	assert_int_equal(count_entries(h, NULL), 2);
	pmc_history_close(h);
	pmc_result_free(r1);
	pmc_result_free(r2);
}

enum { WRITERS = 8, EACH = 6 };

/* Eight processes add at once, started together: each its own EACH results, and all the
 * same one; then the store holds every result once. */
static void eight_writers_lose_and_duplicate_nothing(void **state)
{
	struct store s;
	struct pmc_history *h;
	struct pmc_history_point *ps = NULL;
	int go[2];
	pid_t pids[WRITERS];
	size_t n = 0;
	char err[512] = "";

	new_store(&s);
	assert_int_equal(pipe(go), 0);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			struct pmc_history *ch = NULL;
			char c, created[32], cerr[512] = "";
			int bad = 0;

			close(go[1]);
			/* Everyone waits for the parent's close, then goes at once. */
			if (read(go[0], &c, 1) != 0)
				_exit(3);
			if (pmc_history_open(s.url, PMC_HISTORY_WRITE, &ch, cerr, sizeof(cerr))) {
				fprintf(stderr, "writer %d: %s\n", w, cerr);
				_exit(1);
			}
			for (int i = 0; i <= EACH && !bad; i++) {
				struct pmc_result *r;
				bool added;

				/* i == EACH: the result every writer adds. */
				snprintf(created, sizeof(created), "2026-02-%02dT%02d:00:00Z",
					 i == EACH ? 28 : i + 1, i == EACH ? 0 : w);
				if (pmc_result_new("perf", &r) < 0)
					_exit(1);
				free(r->created);
				r->created = strdup(created);
				{
					struct pmc_benchmark *b;
					struct pmc_metric *m;

					pmc_result_add_benchmark(r, "work", NULL, &b);
					pmc_benchmark_metric(b, "wall-time", &m);
					pmc_metric_append(m, i == EACH ? 1.0 : w * 100.0 + i, NULL);
				}
				if (pmc_history_add(ch, r, NULL, &added, NULL, cerr,
						    sizeof(cerr))) {
					fprintf(stderr, "writer %d: %s\n", w, cerr);
					bad = 1;
				}
				pmc_result_free(r);
			}
			pmc_history_close(ch);
			_exit(bad);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int w = 0; w < WRITERS; w++) {
		int status;

		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	h = open_ok(&s, 0);
	assert_int_equal(count_entries(h, NULL), WRITERS * EACH + 1);
	assert_int_equal(pmc_history_points(h, NULL, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(n, WRITERS * EACH + 1);
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ingest_twice_is_one_entry),
	    cmocka_unit_test(samples_come_back_exactly),
	    cmocka_unit_test(many_points_all_arrive),
	    cmocka_unit_test(names_with_copy_escapes_come_back),
	    cmocka_unit_test(number_text_is_printf_17g),
	    cmocka_unit_test(filters_select_what_they_name),
	    cmocka_unit_test(baseline_pools_the_last_k),
	    cmocka_unit_test(baseline_of_one_machine_among_others),
	    cmocka_unit_test(baseline_is_the_current_level),
	    cmocka_unit_test(remove_takes_out_one_entry),
	    cmocka_unit_test(series_are_read_one_at_a_time),
	    cmocka_unit_test(baseline_reads_the_metrics_asked),
	    cmocka_unit_test(newer_schema_is_refused),
	    cmocka_unit_test(corrupt_file_is_refused),
	    cmocka_unit_test(database_of_another_program_is_refused),
	    cmocka_unit_test(missing_store_is_not_made_by_a_read),
	    cmocka_unit_test(password_is_never_shown),
	    cmocka_unit_test(wrong_password_is_refused),
	    cmocka_unit_test(writer_killed_mid_transaction_leaves_it_consistent),
	    cmocka_unit_test(eight_writers_lose_and_duplicate_nothing),
	};
	char tmpl[] = "/tmp/pmc-history-XXXXXX";
	int rc;

	pmc_test_args(argc, argv, tests);
	pg_base = getenv("PMC_TEST_PG_URL");
	if (pg_base && !*pg_base)
		pg_base = NULL;
	if (!mkdtemp(tmpl))
		return 1;
	snprintf(workdir, sizeof(workdir), "%s", tmpl);
	rc = cmocka_run_group_tests_name(pg_base ? "history (postgresql)" : "history (sqlite)",
					 tests, NULL, NULL);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
		if (system(cmd) != 0)
			rc = rc ? rc : 1;
	}
	return rc;
}
