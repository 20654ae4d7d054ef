/* What makes an entry itself (docs/history.md, "Identity"): the content hash that
 * makes ingest idempotent, and the fingerprint of where a result was measured. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/result.h"
#include "history/history.h"
#include "history/sha256.h"
#include "history/store_priv.h"

static const char *env_of(const struct pmc_result *r, const char *key)
{
	for (size_t i = 0; i < r->nenv; i++)
		if (strcmp(r->env[i].key, key) == 0)
			return r->env[i].value;
	return NULL;
}

void pmc_hist_fp_fields(const struct pmc_result *r, const struct pmc_history_meta *meta,
			struct pmc_history_fp *fp)
{
	const char *compiler = meta ? meta->compiler : NULL;

	fp->machine = meta && meta->machine ? meta->machine : env_of(r, "hostname");
	fp->kernel = env_of(r, "kernel");
	fp->cpu = env_of(r, "cpu-model");
	fp->compiler = env_of(r, "compiler");
	if (!fp->compiler)
		fp->compiler = compiler;
	fp->backend = r->backend;
	fp->target_env = env_of(r, "target-env");
}

static void hash_str(struct pmc_sha256 *s, const char *v)
{
	/* A missing value differs from every string: NUL-terminated text, or one 0xff. */
	if (v)
		pmc_sha256_update(s, v, strlen(v) + 1);
	else
		pmc_sha256_update(s, "\xff", 1);
}

void pmc_history_fingerprint(const struct pmc_result *r, const struct pmc_history_meta *meta,
			     char fp[17])
{
	struct pmc_history_fp f;
	struct pmc_sha256 s;
	char hex[65];

	pmc_hist_fp_fields(r, meta, &f);
	pmc_sha256_init(&s);
	hash_str(&s, f.machine);
	hash_str(&s, f.kernel);
	hash_str(&s, f.cpu);
	hash_str(&s, f.compiler);
	hash_str(&s, f.backend);
	hash_str(&s, f.target_env);
	pmc_sha256_hex(&s, hex);
	memcpy(fp, hex, 16);
	fp[16] = '\0';
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp((*(const struct pmc_env_entry *const *)a)->key,
		      (*(const struct pmc_env_entry *const *)b)->key);
}

/* A whole number below 2^53 (a count, the most common sample) is written without printf,
 * whose "%.17g" of it is its digits: most of the time of hashing and storing a result
 * was printf's. */
size_t pmc_hist_num_text(char *s, double v)
{
	char digits[24];
	size_t n = 0, len = 0;

	/* fabs first: NAN fails it, and a cast of it to an integer is undefined. */
	if (!(fabs(v) < 9007199254740992.0) || v != (double)(int64_t)v || (v == 0 && signbit(v)))
		return (size_t)sprintf(s, "%.17g", v);
	if (v < 0)
		s[len++] = '-';
	for (uint64_t u = (uint64_t)fabs(v);; u /= 10) {
		digits[n++] = (char)('0' + u % 10);
		if (u < 10)
			break;
	}
	while (n > 0)
		s[len++] = digits[--n];
	s[len] = '\0';
	return len;
}

static void hash_num(struct pmc_sha256 *s, double v)
{
	char buf[40];

	if (isnan(v))
		hash_str(s, NULL);
	else {
		pmc_hist_num_text(buf, v);
		hash_str(s, buf);
	}
}

int pmc_history_result_id(const struct pmc_result *r, char id[65])
{
	const struct pmc_env_entry **env = malloc((r->nenv + 1) * sizeof(*env));
	struct pmc_sha256 s;

	if (!env)
		return -ENOMEM;
	/* The content, as the codec would not reorder it: environment keys sorted. */
	pmc_sha256_init(&s);
	hash_str(&s, "pmcbench-history-entry/1");
	hash_str(&s, r->backend);
	hash_str(&s, r->tool_version);
	hash_str(&s, r->created);
	for (size_t i = 0; i < r->nenv; i++)
		env[i] = &r->env[i];
	if (r->nenv) /* an empty array may be NULL, which qsort may not get */
		qsort(env, r->nenv, sizeof(*env), cmp_env);
	for (size_t i = 0; i < r->nenv; i++) {
		hash_str(&s, env[i]->key);
		hash_str(&s, env[i]->value);
	}
	free(env);
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];

		hash_str(&s, "benchmark");
		hash_str(&s, b->name);
		hash_str(&s, b->command);
		hash_str(&s, b->skipped);
		for (size_t j = 0; j < b->nmetrics; j++) {
			const struct pmc_metric *m = &b->metrics[j];

			hash_str(&s, m->id);
			hash_str(&s, m->unit);
			for (size_t k = 0; k < m->n; k++)
				hash_num(&s, m->values[k]);
		}
	}
	pmc_sha256_hex(&s, id);
	return 0;
}
