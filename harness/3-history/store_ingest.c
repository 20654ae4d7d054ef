/* Adding a result to the history in one transaction (pmc_history_add): its entry,
 * environment, tags, points and benchmarks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/hashmap.h"
#include "core/result.h"
#include "core/stats.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/store_priv.h"

/* "2024-05-02T09:14:03Z" in unix seconds; -1 when it is not that form. */
static int64_t parse_time(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		return -1;
	if (*end == '.')
		end += 1 + strspn(end + 1, "0123456789");
	if (strcmp(end, "Z") != 0 && *end)
		return -1;
	return (int64_t)timegm(&tm);
}

/* The median of m's measured samples (NAN when none) and its samples as text. */
static int point_text(const struct pmc_metric *m, double *ret_median, char **ret_text)
{
	double *v = malloc((m->n + 1) * sizeof(double));
	size_t nv = 0, len = 0;
	char *text = malloc(m->n * 26 + 1);

	if (!v || !text) {
		free(v);
		free(text);
		return -ENOMEM;
	}
	text[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		if (isnan(m->values[i]))
			len += (size_t)sprintf(text + len, "%snull", i ? " " : "");
		else {
			v[nv++] = m->values[i];
			len += (size_t)sprintf(text + len, "%s%.17g", i ? " " : "", m->values[i]);
		}
	}
	pmc_stats_sort(v, nv);
	*ret_median = nv == 0 ? NAN : nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
	free(v);
	*ret_text = text;
	return 0;
}

/* Points go in BATCH rows per statement: a statement is a round trip to a server, and
 * a result of 10,000 benchmarks holds 100,000 points (9 parameters a row, far below
 * either engine's limit). */
#define BATCH 100
#define POINT_PARAMS 9

struct batch {
	size_t n;
	const char *p[BATCH * POINT_PARAMS];
	char num[BATCH][3][40]; /* better, n, median */
	char *samples[BATCH];
};

static void batch_clear(struct batch *bt)
{
	for (size_t i = 0; i < bt->n; i++)
		free(bt->samples[i]);
	bt->n = 0;
}

/* Inserts nrows rows of ncols parameters each (p) in one statement: head, then the
 * VALUES. The statements of full batches have one text, so that SQLite's prepared
 * statement is reused. */
static int insert_rows(struct pmc_history *h, const char *head, size_t ncols, const char *const *p,
		       size_t nrows, char *err, size_t errlen)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (nrows == 0)
		return 0;
	f = open_memstream(&sql, &len);
	if (!f)
		return oom(err, errlen);
	fprintf(f, "%s VALUES ", head);
	for (size_t i = 0; i < nrows; i++) {
		fprintf(f, "%s(", i ? ", " : "");
		for (size_t k = 0; k < ncols; k++)
			fprintf(f, "%s$%zu", k ? ", " : "", i * ncols + k + 1);
		fputc(')', f);
	}
	if (fclose(f) != 0) {
		free(sql);
		return oom(err, errlen);
	}
	r = h->eng->exec(h->db, sql, p, nrows * ncols, NULL, err, errlen);
	free(sql);
	return r;
}

/* Inserts the rows of bt: one statement of bt->n rows. */
static int batch_flush(struct pmc_history *h, struct batch *bt, char *err, size_t errlen)
{
	int r = insert_rows(h,
			    "INSERT INTO pmc_point (entry, benchmark, metric, unit, better, "
			    "simulated, n, median, samples)",
			    POINT_PARAMS, bt->p, bt->n, err, errlen);

	batch_clear(bt);
	return r;
}

/* The benchmarks of res with a metric, and their runs (the most samples of one), BATCH
 * rows a statement. */
static int add_benches(struct pmc_history *h, const struct pmc_result *res, const char *id,
		       char *err, size_t errlen)
{
	struct {
		const char *p[BATCH * 3];
		char runs[BATCH][24];
	} *bt = calloc(1, sizeof(*bt));
	size_t n = 0;
	int r = 0;

	if (!bt)
		return oom(err, errlen);
	for (size_t i = 0; i < res->nbench && r == 0; i++) {
		const struct pmc_benchmark *b = &res->benchmarks[i];
		size_t runs = 0;

		if (b->nmetrics == 0)
			continue;
		for (size_t j = 0; j < b->nmetrics; j++)
			if (b->metrics[j].n > runs)
				runs = b->metrics[j].n;
		snprintf(bt->runs[n], sizeof(bt->runs[n]), "%zu", runs);
		bt->p[n * 3] = id;
		bt->p[n * 3 + 1] = b->name;
		bt->p[n * 3 + 2] = bt->runs[n];
		if (++n == BATCH) {
			r = insert_rows(h, "INSERT INTO pmc_bench (entry, benchmark, runs)", 3,
					bt->p, n, err, errlen);
			n = 0;
		}
	}
	if (r == 0)
		r = insert_rows(h, "INSERT INTO pmc_bench (entry, benchmark, runs)", 3, bt->p, n,
				err, errlen);
	free(bt);
	return r;
}

/* A point of the result: its metric's rank (by first appearance), benchmark and metric. */
struct point_at {
	size_t rank, b, j;
};

static int cmp_point_at(const void *a, const void *b)
{
	const struct point_at *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

/* res's points in the order they are inserted: metric by metric, each metric's
 * benchmarks in the result's order. The rows of a store lie in that order, so that one
 * metric's points of an entry, which a gate reads, share a few pages. */
static int points_in_order(const struct pmc_result *res, struct point_at **ret, size_t *ret_n)
{
	struct pmc_hashmap ids = {0};
	struct point_at *v;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < res->nbench; i++)
		n += res->benchmarks[i].nmetrics;
	v = malloc((n + 1) * sizeof(*v));
	r = v ? pmc_hashmap_init(&ids, 16) : -ENOMEM;
	n = 0;
	for (size_t i = 0; r >= 0 && i < res->nbench; i++)
		for (size_t j = 0; r >= 0 && j < res->benchmarks[i].nmetrics; j++) {
			r = pmc_hashmap_get_or_put(&ids, res->benchmarks[i].metrics[j].id, ids.n,
						   &v[n].rank);
			v[n].b = i;
			v[n++].j = j;
		}
	pmc_hashmap_free(&ids);
	if (r < 0) {
		free(v);
		return r;
	}
	qsort(v, n, sizeof(*v), cmp_point_at);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int add_points(struct pmc_history *h, const struct pmc_result *res, const char *id,
		      char *err, size_t errlen)
{
	struct batch *bt = calloc(1, sizeof(*bt));
	struct point_at *at = NULL;
	size_t n = 0;
	int r = 0;

	if (!bt || points_in_order(res, &at, &n) < 0) {
		free(bt);
		return oom(err, errlen);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct pmc_benchmark *b = &res->benchmarks[at[i].b];
		const struct pmc_metric *m = &b->metrics[at[i].j];
		const char **p = bt->p + bt->n * POINT_PARAMS;
		char(*num)[40] = bt->num[bt->n];
		double med;

		if (point_text(m, &med, &bt->samples[bt->n]) < 0) {
			r = oom(err, errlen);
			break;
		}
		snprintf(num[0], sizeof(num[0]), "%d", m->better);
		snprintf(num[1], sizeof(num[1]), "%zu", m->n);
		snprintf(num[2], sizeof(num[2]), "%.17g", med);
		p[0] = id;
		p[1] = b->name;
		p[2] = m->id;
		p[3] = m->unit ? m->unit : "";
		p[4] = num[0];
		p[5] = m->simulated ? "1" : "0";
		p[6] = num[1];
		p[7] = isnan(med) ? NULL : num[2];
		p[8] = bt->samples[bt->n];
		if (++bt->n == BATCH)
			r = batch_flush(h, bt, err, errlen);
	}
	if (r == 0)
		r = batch_flush(h, bt, err, errlen);
	batch_clear(bt);
	free(bt);
	free(at);
	return r;
}

static int add_pairs(struct pmc_history *h, const char *sql, const char *id,
		     const struct pmc_env_entry *env, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const char *p[] = {id, env[i].key, env[i].value};
		int r = h->eng->exec(h->db, sql, p, 3, NULL, err, errlen);

		if (r < 0)
			return r;
	}
	return 0;
}

/* The tags "k=v" as pairs; a tag without '=' or with an empty key is -EINVAL. */
static int parse_tags(const char *const *tags, size_t n, struct pmc_env_entry **ret, char *err,
		      size_t errlen)
{
	struct pmc_env_entry *v = calloc(n + 1, sizeof(*v));

	if (!v)
		return oom(err, errlen);
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(tags[i], '=');

		if (!eq || eq == tags[i]) {
			pmc_err_set(err, errlen, "tag '%s' is not KEY=VALUE", tags[i]);
			for (size_t j = 0; j < i; j++)
				free(v[j].key);
			free(v);
			return -EINVAL;
		}
		v[i].key = strndup(tags[i], (size_t)(eq - tags[i]));
		v[i].value = (char *)eq + 1;
		if (!v[i].key) {
			for (size_t j = 0; j < i; j++)
				free(v[j].key);
			free(v);
			return oom(err, errlen);
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(v[j].key, v[i].key) == 0) {
				pmc_err_set(err, errlen,
					    "tag '%s' is given twice; give each key once",
					    v[i].key);
				for (size_t k = 0; k <= i; k++)
					free(v[k].key);
				free(v);
				return -EINVAL;
			}
	}
	*ret = v;
	return 0;
}

int pmc_history_add(struct pmc_history *h, const struct pmc_result *r,
		    const struct pmc_history_meta *meta, bool *ret_added, char ret_id[65],
		    char *err, size_t errlen)
{
	static const struct pmc_history_meta none = {0};
	struct pmc_env_entry *tags = NULL;
	struct pmc_history_fp f;
	char id[65], fp[17], t[24], added[24];
	int64_t now, when;
	long changes = 0;
	int rc;

	if (!meta)
		meta = &none;
	if (pmc_history_result_id(r, id) < 0)
		return oom(err, errlen);
	rc = parse_tags(meta->tags, meta->ntags, &tags, err, errlen);
	if (rc < 0)
		return rc;
	pmc_history_fingerprint(r, meta, fp);
	pmc_hist_fp_fields(r, meta, &f);
	now = meta->now ? meta->now : (int64_t)time(NULL);
	when = parse_time(r->created);
	snprintf(t, sizeof(t), "%lld", (long long)(when >= 0 ? when : now));
	snprintf(added, sizeof(added), "%lld", (long long)now);

	rc = h->eng->begin(h->db, false, err, errlen);
	if (rc < 0)
		goto free_tags;
	{
		const char *p[] = {id,
				   t,
				   added,
				   meta->commit,
				   meta->branch,
				   fp,
				   f.machine,
				   f.kernel,
				   f.cpu,
				   f.compiler,
				   f.backend,
				   f.target_env,
				   r->tool_version,
				   meta->source};

		rc = h->eng->exec(
		    h->db,
		    "INSERT INTO pmc_entry (id, t, added, commit_sha, branch, "
		    "fingerprint, machine, kernel, cpu, compiler, backend, target_env, "
		    "tool_version, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
		    "$10, $11, $12, $13, $14) ON CONFLICT (id) DO NOTHING",
		    p, 14, &changes, err, errlen);
	}
	if (rc < 0)
		goto rollback;
	if (changes == 0) {
		/* The same content is there already: one entry, nothing written. */
		h->eng->rollback(h->db);
		goto done;
	}
	rc = add_pairs(h, "INSERT INTO pmc_env (entry, key, value) VALUES ($1, $2, $3)", id, r->env,
		       r->nenv, err, errlen);
	if (rc == 0)
		rc = add_pairs(h, "INSERT INTO pmc_tag (entry, key, value) VALUES ($1, $2, $3)", id,
			       tags, meta->ntags, err, errlen);
	if (rc == 0)
		rc = add_points(h, r, id, err, errlen);
	if (rc == 0)
		rc = add_benches(h, r, id, err, errlen);
	if (rc == 0)
		rc = h->eng->commit(h->db, err, errlen);
	if (rc < 0)
		goto rollback;
done:
	*ret_added = changes > 0;
	if (ret_id)
		memcpy(ret_id, id, 65);
	goto free_tags;
rollback:
	h->eng->rollback(h->db);
free_tags:
	for (size_t i = 0; tags && i < meta->ntags; i++)
		free(tags[i].key);
	free(tags);
	return rc;
}
