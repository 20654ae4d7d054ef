/* Adding a result to the history in one transaction (pmc_history_add): its entry,
 * environment, tags, points and benchmarks; and removing one (pmc_history_remove). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/grow.h"
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

/* A point of the result: its metric's rank (by first appearance), benchmark and metric. */
struct point_at {
	size_t rank, b, j;
	size_t name; /* its number in pmc_name */
};

static int cmp_point_name(const void *a, const void *b)
{
	const struct point_at *x = a, *y = b;

	return x->name < y->name ? -1 : x->name > y->name;
}

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

/* The rows of pmc_point, one a point, in the order of at (name[i]: the number of point
 * i's name in pmc_name); the samples' text and the copy sorted for the median are reused
 * row after row. */
struct point_rows {
	const struct pmc_result *res;
	const char *entry; /* the entry's number */
	const struct point_at *at;
	char *text;
	size_t captext;
	double *v;
	size_t capv;
	char num[3][40]; /* name, n, median */
};

/* Row i: the point's samples as "v v null v", and their median (NULL when none was
 * measured); a one-sample point's sample is its median, its samples NULL. */
static int point_row(void *ud, size_t i, const char **p)
{
	struct point_rows *pr = ud;
	const struct pmc_benchmark *b = &pr->res->benchmarks[pr->at[i].b];
	const struct pmc_metric *m = &b->metrics[pr->at[i].j];
	size_t nv = 0, len = 0;
	double med;

	if (pmc_grow_to(&pr->text, &pr->captext, m->n * 26 + 1, 1) < 0 ||
	    pmc_grow_to(&pr->v, &pr->capv, m->n + 1, sizeof(double)) < 0)
		return -ENOMEM;
	pr->text[0] = '\0';
	for (size_t k = 0; k < m->n; k++) {
		if (k)
			pr->text[len++] = ' ';
		if (isnan(m->values[k])) {
			memcpy(pr->text + len, "null", 5);
			len += 4;
		} else {
			pr->v[nv++] = m->values[k];
			len += pmc_hist_num_text(pr->text + len, m->values[k]);
		}
	}
	pmc_stats_sort(pr->v, nv);
	med = nv == 0 ? NAN : nv % 2 ? pr->v[nv / 2] : (pr->v[nv / 2 - 1] + pr->v[nv / 2]) / 2;
	snprintf(pr->num[0], sizeof(pr->num[0]), "%zu", pr->at[i].name);
	snprintf(pr->num[1], sizeof(pr->num[1]), "%zu", m->n);
	pmc_hist_num_text(pr->num[2], med);
	p[0] = pr->num[0];
	p[1] = pr->entry;
	p[2] = pr->num[1];
	p[3] = isnan(med) ? NULL : pr->num[2];
	p[4] = m->n == 1 ? NULL : pr->text;
	return 0;
}

/* The rows of pmc_bench: the benchmarks of res with a metric (from first), and their
 * runs (the most samples of one). */
struct bench_rows {
	const struct pmc_result *res;
	const char *id;
	size_t *with; /* the benchmarks with a metric */
	char runs[24];
};

static int bench_row(void *ud, size_t i, const char **p)
{
	struct bench_rows *br = ud;
	const struct pmc_benchmark *b = &br->res->benchmarks[br->with[i]];
	size_t runs = 0;

	for (size_t j = 0; j < b->nmetrics; j++)
		if (b->metrics[j].n > runs)
			runs = b->metrics[j].n;
	snprintf(br->runs, sizeof(br->runs), "%zu", runs);
	p[0] = br->id;
	p[1] = b->name;
	p[2] = br->runs;
	return 0;
}

static int add_benches(struct pmc_history *h, const struct pmc_result *res, const char *id,
		       char *err, size_t errlen)
{
	static const char *const cols[] = {"entry", "benchmark", "runs"};
	struct bench_rows br = {res, id, malloc((res->nbench + 1) * sizeof(size_t)), ""};
	size_t n = 0;
	int r;

	if (!br.with)
		return oom(err, errlen);
	for (size_t i = 0; i < res->nbench; i++)
		if (res->benchmarks[i].nmetrics > 0)
			br.with[n++] = i;
	r = h->eng->insert(h->db, "pmc_bench", cols, 3, n, bench_row, &br, err, errlen);
	free(br.with);
	return r;
}

/* The names of a result's points (pmc_name): the store's, and those the result adds. */
struct names {
	struct pmc_hashmap map; /* "benchmark\x1fmetric\x1funit\x1fbetter\x1fsimulated" -> num */
	char **keys;		/* owned: the map borrows them */
	size_t nkeys;
};

static void names_free(struct names *ns)
{
	pmc_hashmap_free(&ns->map);
	for (size_t i = 0; i < ns->nkeys; i++)
		free(ns->keys[i]);
	free(ns->keys);
	memset(ns, 0, sizeof(*ns));
}

/* The key of a name; NULL when out of memory. */
static char *name_key(const char *bench, const char *metric, const char *unit, const char *better,
		      const char *simulated)
{
	char *k = NULL;

	if (asprintf(&k, "%s\x1f%s\x1f%s\x1f%s\x1f%s", bench, metric, unit, better, simulated) < 0)
		return NULL;
	return k;
}

static int name_row(void *ud, const char *const *c, size_t n)
{
	struct names *ns = ud;
	char *k;
	int r;

	if (n < 6 || !c[0] || !c[1] || !c[2] || !c[3] || !c[4] || !c[5])
		return 0; /* NOT NULL columns: not a name pmcbench wrote */
	k = name_key(c[1], c[2], c[3], c[4], c[5]);
	if (!k || pmc_grow(&ns->keys, ns->nkeys, sizeof(*ns->keys)) < 0) {
		free(k);
		return -ENOMEM;
	}
	ns->keys[ns->nkeys++] = k;
	r = pmc_hashmap_put(&ns->map, k, strtoull(c[0], NULL, 10));
	return r < 0 ? r : 0;
}

static int read_names(struct pmc_history *h, struct names *ns, char *err, size_t errlen)
{
	names_free(ns);
	return h->eng->query(h->db,
			     "SELECT num, benchmark, metric, unit, better, simulated FROM pmc_name",
			     NULL, 0, name_row, ns, err, errlen);
}

/* The rows of pmc_name a result adds: the names of its points not in the store. */
struct new_names {
	const struct pmc_result *res;
	const struct point_at *at;
	size_t *which; /* points whose name is new, each name once */
	char num[24];
};

static int new_name_row(void *ud, size_t i, const char **p)
{
	struct new_names *nn = ud;
	const struct point_at *a = &nn->at[nn->which[i]];
	const struct pmc_benchmark *b = &nn->res->benchmarks[a->b];
	const struct pmc_metric *m = &b->metrics[a->j];

	snprintf(nn->num, sizeof(nn->num), "%d", m->better);
	p[0] = b->name;
	p[1] = m->id;
	p[2] = m->unit ? m->unit : "";
	p[3] = nn->num;
	p[4] = m->simulated ? "1" : "0";
	return 0;
}

/* The number of each point's name (at[i].name), adding to pmc_name those the store
 * does not have. Adds hold the store's write lock (SQLite's, PostgreSQL's advisory lock),
 * so no other writer adds a name meanwhile. */
static int point_names(struct pmc_history *h, const struct pmc_result *res, struct point_at *at,
		       size_t n, char *err, size_t errlen)
{
	static const char *const cols[] = {"benchmark", "metric", "unit", "better", "simulated"};
	struct names ns = {0};
	struct new_names nn = {res, at, calloc(n + 1, sizeof(size_t)), ""};
	struct pmc_hashmap seen = {0};
	char **keys = calloc(n + 1, sizeof(char *));
	size_t nnew = 0;
	int r = nn.which && keys ? read_names(h, &ns, err, errlen) : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++) {
		const struct pmc_benchmark *b = &res->benchmarks[at[i].b];
		const struct pmc_metric *m = &b->metrics[at[i].j];
		char better[24];

		snprintf(better, sizeof(better), "%d", m->better);
		keys[i] = name_key(b->name, m->id, m->unit ? m->unit : "", better,
				   m->simulated ? "1" : "0");
		if (!keys[i])
			r = -ENOMEM;
		else if (!pmc_hashmap_has(&ns.map, keys[i]) &&
			 (r = pmc_hashmap_get_or_put(&seen, keys[i], i, NULL)) == 1)
			nn.which[nnew++] = i;
		r = r < 0 ? r : 0;
	}
	if (r == 0 && nnew > 0) {
		r = h->eng->insert(h->db, "pmc_name", cols, 5, nnew, new_name_row, &nn, err,
				   errlen);
		if (r == 0)
			r = read_names(h, &ns, err, errlen);
	}
	for (size_t i = 0; r == 0 && i < n; i++)
		if (pmc_hashmap_get(&ns.map, keys[i], &at[i].name) < 0) {
			pmc_err_set(err, errlen, "%s: a name added to pmc_name is not there",
				    h->display);
			r = -EIO;
		}
	if (r == -ENOMEM)
		oom(err, errlen);
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
	free(nn.which);
	pmc_hashmap_free(&seen);
	names_free(&ns);
	return r;
}

static int add_points(struct pmc_history *h, const struct pmc_result *res, const char *entry,
		      char *err, size_t errlen)
{
	static const char *const cols[] = {"name", "entry", "n", "median", "samples"};
	struct point_rows pr = {res, entry};
	struct point_at *at = NULL;
	size_t n = 0;
	int r;

	if (points_in_order(res, &at, &n) < 0)
		return oom(err, errlen);
	r = point_names(h, res, at, n, err, errlen);
	/* In the order of the table's key: each point goes after the last of its series. */
	if (r == 0 && n > 0)
		qsort(at, n, sizeof(*at), cmp_point_name);
	pr.at = at;
	if (r == 0)
		r = h->eng->insert(h->db, "pmc_point", cols, 5, n, point_row, &pr, err, errlen);
	if (r == -ENOMEM)
		oom(err, errlen);
	free(pr.text);
	free(pr.v);
	free(at);
	return r;
}

/* The rows of pmc_env or pmc_tag: the entry's key-value pairs. */
struct pair_rows {
	const char *id;
	const struct pmc_env_entry *v;
};

static int pair_row(void *ud, size_t i, const char **p)
{
	const struct pair_rows *pr = ud;

	p[0] = pr->id;
	p[1] = pr->v[i].key;
	p[2] = pr->v[i].value;
	return 0;
}

static int add_pairs(struct pmc_history *h, const char *table, const char *id,
		     const struct pmc_env_entry *v, size_t n, char *err, size_t errlen)
{
	static const char *const cols[] = {"entry", "key", "value"};
	struct pair_rows pr = {id, v};

	return h->eng->insert(h->db, table, cols, 3, n, pair_row, &pr, err, errlen);
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

static int num_row(void *ud, const char *const *cols, size_t n)
{
	snprintf(ud, 24, "%s", n && cols[0] ? cols[0] : "");
	return 0;
}

/* The number the store gave the entry id (schema 3), as text in num[24]. */
static int entry_num(struct pmc_history *h, const char *id, char *num, char *err, size_t errlen)
{
	const char *p[] = {id};
	int r = h->eng->query(h->db, "SELECT num FROM pmc_entry WHERE id = $1", p, 1, num_row, num,
			      err, errlen);

	if (r == 0 && !*num) {
		pmc_err_set(err, errlen, "%s: the entry just added is not there", h->display);
		r = -EIO;
	}
	return r;
}

int pmc_history_add(struct pmc_history *h, const struct pmc_result *r,
		    const struct pmc_history_meta *meta, bool *ret_added, char ret_id[65],
		    char *err, size_t errlen)
{
	static const struct pmc_history_meta none = {0};
	struct pmc_env_entry *tags = NULL;
	struct pmc_history_fp f;
	char id[65], fp[17], t[24], added[24], num[24] = "";
	int64_t now, when;
	long changes = 0;
	int rc;

	if (!meta)
		meta = &none;
	if (h->schema < PMC_HISTORY_SCHEMA) {
		pmc_err_set(err, errlen, "%s: an older schema is read only; open it to write",
			    h->display);
		return -EROFS;
	}
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

	/* With the write lock (PostgreSQL: the advisory lock), so that the names a result
	 * adds to pmc_name are added by one writer at a time. */
	rc = h->eng->begin(h->db, true, err, errlen);
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
	rc = entry_num(h, id, num, err, errlen);
	if (rc == 0)
		rc = add_pairs(h, "pmc_env", num, r->env, r->nenv, err, errlen);
	if (rc == 0)
		rc = add_pairs(h, "pmc_tag", num, tags, meta->ntags, err, errlen);
	if (rc == 0)
		rc = add_points(h, r, num, err, errlen);
	if (rc == 0)
		rc = add_benches(h, r, num, err, errlen);
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

struct found {
	char id[65];
	char ref[65]; /* what the other tables name it by: its number (schema 3), or id */
	char *commit;
	int64_t t;
	size_t n;
};

static int found_row(void *ud, const char *const *cols, size_t ncols)
{
	struct found *f = ud;

	if (f->n++ == 0) {
		snprintf(f->id, sizeof(f->id), "%s", cols[0]);
		snprintf(f->ref, sizeof(f->ref), "%s", cols[3] ? cols[3] : "");
		f->t = cols[1] ? strtoll(cols[1], NULL, 10) : 0;
		if (cols[2] && !(f->commit = strdup(cols[2])))
			return -ENOMEM;
	}
	return 0;
}

int pmc_history_remove(struct pmc_history *h, const char *key, char ret_id[65], char **ret_commit,
		       int64_t *ret_t, char *err, size_t errlen)
{
	/* The rows that name the entry, then the entry itself (their REFERENCES). */
	static const char *const tables[] = {"pmc_point", "pmc_bench", "pmc_env", "pmc_tag"};
	struct found f = {.n = 0};
	char like[80], sql[128];
	const char *p[] = {like};
	size_t len = strlen(key);
	int rc;

	if (len < 4 || len > 64 || strspn(key, "0123456789abcdef") != len) {
		pmc_err_set(err, errlen,
			    "'%.80s' is not an entry key: give its hex digits as 'pmcbench history "
			    "list' shows them (at least 4)",
			    key);
		return -EINVAL;
	}
	snprintf(like, sizeof(like), "%s%%", key);
	/* With the write lock (PostgreSQL: the advisory lock), so that the names a result
	 * adds to pmc_name are added by one writer at a time. */
	rc = h->eng->begin(h->db, true, err, errlen);
	if (rc < 0)
		return rc;
	rc = h->eng->query(h->db,
			   h->schema >= 3 ? "SELECT id, t, commit_sha, num FROM pmc_entry WHERE id "
					    "LIKE $1 ORDER BY id LIMIT 2"
					  : "SELECT id, t, commit_sha, id FROM pmc_entry WHERE id "
					    "LIKE $1 ORDER BY id LIMIT 2",
			   p, 1, found_row, &f, err, errlen);
	if (rc == -ENOMEM)
		oom(err, errlen);
	if (rc == 0 && f.n == 0) {
		pmc_err_set(err, errlen,
			    "%s holds no entry %s; 'pmcbench history list' shows the entries",
			    h->display, key);
		rc = -ENOENT;
	} else if (rc == 0 && f.n > 1) {
		pmc_err_set(err, errlen,
			    "%s: %s is the start of several entries' keys; give more of it "
			    "('pmcbench history list' shows 12 digits)",
			    h->display, key);
		rc = -EINVAL;
	}
	p[0] = f.ref;
	for (size_t i = 0; rc == 0 && i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (strcmp(tables[i], "pmc_bench") == 0 && h->schema < 2)
			continue;
		/* Schema 3's points are found by their key (name, entry): a probe a name. */
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE %sentry = $1", tables[i],
			 h->schema >= 3 && strcmp(tables[i], "pmc_point") == 0
			     ? "name IN (SELECT num FROM pmc_name) AND "
			     : "");
		rc = h->eng->exec(h->db, sql, p, 1, NULL, err, errlen);
	}
	p[0] = f.id;
	if (rc == 0)
		rc = h->eng->exec(h->db, "DELETE FROM pmc_entry WHERE id = $1", p, 1, NULL, err,
				  errlen);
	if (rc == 0)
		rc = h->eng->commit(h->db, err, errlen);
	if (rc < 0) {
		h->eng->rollback(h->db);
		free(f.commit);
		return rc;
	}
	if (ret_id)
		memcpy(ret_id, f.id, 65);
	if (ret_commit)
		*ret_commit = f.commit;
	else
		free(f.commit);
	if (ret_t)
		*ret_t = f.t;
	return 0;
}
