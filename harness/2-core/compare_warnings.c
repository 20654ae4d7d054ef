/* The comparison's warnings (compare_priv.h, docs/compare.md): each once, one line each,
 * written when the comparison is done (environments that differ, skipped benchmarks,
 * multiplexed counts, rows without values or not tested), and the --threshold and
 * --metric requests that checked nothing, with why and the fix. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "base/suggest.h"
#include "core/compare.h"
#include "core/compare_priv.h"
#include "core/result.h"

/* Appends msg (taken, freed on failure) to the list of lines *v of *n. */
int pmc_cmp_lines_push(char ***v, size_t *n, char *msg)
{
	if (pmc_grow(v, *n, sizeof(**v)) < 0) {
		free(msg);
		return -ENOMEM;
	}
	(*v)[(*n)++] = msg;
	return 0;
}

int pmc_cmp_warn(struct pmc_comparison *c, const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	for (size_t i = 0; i < c->nwarnings; i++) {
		if (strcmp(c->warnings[i], msg) == 0) {
			free(msg);
			return 0;
		}
	}
	return pmc_cmp_lines_push(&c->warnings, &c->nwarnings, msg);
}

const char *pmc_cmp_side_name(const struct ctx *x, int side)
{
	if (side == SIDE_OLD)
		return x->old_name ? x->old_name : "the old result";
	return x->new_name ? x->new_name : "the new result";
}

/* What makes counts of two machines or set-ups differ; "counting" is "user-only" or
 * "user+kernel" (pmcbench run falls back to user space when the kernel is denied);
 * valgrind's tool (callgrind or cachegrind) and version decide what it simulates; the
 * command's environment moves its stack and start-up work (docs/valgrind.md); two formats
 * of one tool print with different precision (perf stat -x, and -j: docs/import.md). */
static const char *const env_keys[] = {"cpu-model",  "kernel",	      "perf_event_paranoid",
				       "counting",   "valgrind-tool", "valgrind-version",
				       "target-env", "imported-from"};

static int env_warning(struct pmc_comparison *c, const struct pmc_result *a,
		       const struct pmc_result *b)
{
	char msg[1024];
	size_t len = 0;

	msg[0] = '\0';
	if (a->backend && b->backend && strcmp(a->backend, b->backend) != 0)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "backend '%s' vs '%s'",
					a->backend, b->backend);
	for (size_t i = 0; i < sizeof(env_keys) / sizeof(env_keys[0]) && len < sizeof(msg); i++) {
		const char *va = pmc_result_get_env(a, env_keys[i]);
		const char *vb = pmc_result_get_env(b, env_keys[i]);

		if (!va || !vb || strcmp(va, vb) == 0)
			continue;
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s '%.100s' vs '%.100s'",
					len ? "; " : "", env_keys[i], va, vb);
	}
	if (len == 0)
		return 0;
	return pmc_cmp_warn(c,
			    "environments differ (%s): the change may come from the "
			    "machine, not the code",
			    msg);
}

/* User-only (":u") counting on one side and all counting on the other shows as the
 * same event id with and without the modifier. */
static int counting_warning(struct ctx *x)
{
	for (size_t i = 0; i < x->nslots; i++) {
		const char *id = x->slots[i].id;
		size_t len = strlen(id);

		if (len < 3 || (strcmp(id + len - 2, ":u") && strcmp(id + len - 2, ":k")))
			continue;
		{
			char base[256];

			if (len - 2 >= sizeof(base))
				continue;
			memcpy(base, id, len - 2);
			base[len - 2] = '\0';
			if (pmc_hashmap_has(&x->ids, base))
				return pmc_cmp_warn(x->c,
						    "'%s' and '%s' both appear: one side "
						    "counts user space only, the other all; "
						    "they are not compared with each other",
						    base, id);
		}
	}
	return 0;
}

/* "'avx2' (no AVX2 on this CPU)": a skipped benchmark and its reason. */
int pmc_cmp_skipped_name(char *buf, size_t len, const struct pmc_benchmark *b)
{
	return snprintf(buf, len, "'%.100s' (%.160s)", b->name,
			*b->skipped ? b->skipped : "no reason given");
}

/* Names the benchmarks skipped in one result, the first three with their reasons: they
 * are in both results but were not measured in this one, so nothing of theirs is compared
 * (docs/compare.md, "What is compared with what"). */
static int skipped_warning(struct ctx *x, int side)
{
	size_t n = x->nskip[side], shown = n < 3 ? n : 3, off = 0;
	char names[3 * 300] = "";

	for (size_t i = 0; i < shown && off < sizeof(names); i++) {
		int k;

		if (i)
			off += (size_t)snprintf(names + off, sizeof(names) - off, ", ");
		if (off >= sizeof(names))
			break;
		k = pmc_cmp_skipped_name(names + off, sizeof(names) - off,
					 x->skip_example[side][i]);
		off += k > 0 ? (size_t)k : 0;
	}
	if (n == 1)
		return pmc_cmp_warn(x->c, "benchmark %s was skipped in %s and is not compared",
				    names, pmc_cmp_side_name(x, side));
	return pmc_cmp_warn(x->c, "%zu benchmarks were skipped in %s and are not compared: %s%s", n,
			    pmc_cmp_side_name(x, side), names, n > shown ? ", ..." : "");
}

/* A complexity fit of the same benchmarks and metric that changed its O() between the two
 * results (docs/result-schema.md, "complexity"): its coefficient is not comparable then,
 * and the change is what to look at. */
static int fits_warning(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < a->nfits; i++)
		for (size_t j = 0; r == 0 && j < b->nfits; j++) {
			const struct pmc_fit *f = &a->fits[i], *g = &b->fits[j];

			if (strcmp(f->name, g->name) == 0 && strcmp(f->metric, g->metric) == 0 &&
			    strcmp(f->big_o, g->big_o) != 0)
				r = pmc_cmp_warn(
				    x->c,
				    "complexity of '%s' changed: %s (rms %.0f%%) in %s, "
				    "%s (rms %.0f%%) in %s",
				    f->name, f->big_o, f->rms * 100, pmc_cmp_side_name(x, SIDE_OLD),
				    g->big_o, g->rms * 100, pmc_cmp_side_name(x, SIDE_NEW));
		}
	return r;
}

int pmc_cmp_final_warnings(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b)
{
	struct pmc_comparison *c = x->c;
	int r = 0;

	/* Of one result's benchmarks, only two builds' can differ, and pmc_compare_builds
	 * names them instead. */
	if ((c->nonly_old || c->nonly_new) && !x->one_result) {
		char skipped[64] = "";

		if (c->nskipped)
			snprintf(skipped, sizeof(skipped), " (%zu of them skipped)", c->nskipped);
		r = pmc_cmp_warn(c,
				 "benchmark sets differ: %zu in both%s, %zu only in the old "
				 "result, %zu only in the new one; only those in both are "
				 "compared",
				 c->ncommon, skipped, c->nonly_old, c->nonly_new);
	}
	for (int side = SIDE_NEW; side >= SIDE_OLD; side--)
		if (r == 0 && x->nskip[side])
			r = skipped_warning(x, side);
	if (r == 0)
		r = env_warning(c, a, b);
	if (r == 0)
		r = fits_warning(x, a, b);
	if (r == 0)
		r = counting_warning(x);
	if (r == 0 && x->mux_low)
		r = pmc_cmp_warn(c,
				 "%zu row%s counts scaled by multiplexing that ran less than "
				 "50%% of the time (lowest: %s of '%s' at %.0f%%): their values "
				 "are estimates; count fewer events at once",
				 x->mux_low, x->mux_low == 1 ? " holds" : "s hold", x->mux_metric,
				 x->mux_bench, x->mux_min * 100);
	for (int side = 1; side >= 0; side--)
		if (r == 0 && x->missing_rows[side])
			r = pmc_cmp_warn(
			    c,
			    "%zu row%s no value in the %s result (e.g. '%s': %s) "
			    "and %s not compared",
			    x->missing_rows[side], x->missing_rows[side] == 1 ? " has" : "s have",
			    side ? "new" : "old", x->missing_example[side], x->missing_status[side],
			    x->missing_rows[side] == 1 ? "is" : "are");
	if (r == 0 && x->none_invocation)
		r = pmc_cmp_warn(
		    c,
		    "%zu row%s (e.g. %s) %s not tested%s: a side's runs come from one "
		    "invocation, which they share, and %s between invocations with the "
		    "machine's load; measure both sides in one invocation (pmcbench run "
		    "-c A -c B; a benchmark program's two builds: --against, --library), or count "
		    "exactly (--backend valgrind) (docs/statistics.md, \"The unit of "
		    "replication\")",
		    x->none_invocation, x->none_invocation == 1 ? "" : "s",
		    x->one_invocation_metric, x->none_invocation == 1 ? "is" : "are",
		    !x->nleft_out ? ""
		    : x->none_invocation == 1
			? ", and the gate leaves it out unless a limit names it"
			: ", and the gate leaves them out unless a limit names them",
		    x->none_invocation == 1 ? "such a metric moves" : "such metrics move");
	if (r == 0 && x->nno_process)
		r = pmc_cmp_warn(c,
				 "%zu row%s of a benchmark program whose old result records no "
				 "process: tested run by run, though the samples of one process "
				 "share its conditions; measure the baseline again with this "
				 "version to test at the level of processes",
				 x->nno_process, x->nno_process == 1 ? "" : "s");
	if (r == 0 && x->nonpositive) {
		/* Named: "system-time of b, cpu-migrations of b and 2 more". */
		char names[512];
		size_t used = 0, shown = x->nonpositive < 4 ? x->nonpositive : 4;

		names[0] = '\0';
		for (size_t i = 0; i < shown && used < sizeof(names); i++) {
			const struct pmc_cmp_row *row = &c->rows[x->nonpositive_rows[i]];

			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s of %s",
						 i ? ", " : "", row->metric, row->bench);
		}
		if (x->nonpositive > shown && used < sizeof(names))
			snprintf(names + used, sizeof(names) - used, " and %zu more",
				 x->nonpositive - shown);
		r = pmc_cmp_warn(c,
				 "%zu row%s zero or negative values (%s): the change has no "
				 "confidence interval there",
				 x->nonpositive, x->nonpositive == 1 ? " holds" : "s hold", names);
	}
	for (size_t i = 0; r == 0 && i < x->nslots; i++)
		if (x->slots[i].only_new && x->slots[i].selected)
			r = pmc_cmp_warn(c,
					 "metric '%s' is only in the new result (%zu "
					 "benchmark%s): no baseline to compare against",
					 x->slots[i].id, x->slots[i].only_new,
					 x->slots[i].only_new == 1 ? "" : "s");
	return r;
}

/* " (did you mean 'instructions'?)" for the metric ids close to name, by the rule every
 * suggestion follows (harness/0-base/suggest.h); else "". */
static void suggest(const struct ctx *x, const char *name, char *buf, size_t len)
{
	struct pmc_suggest s;
	size_t at;

	buf[0] = '\0';
	pmc_suggest_init(&s, name, strlen(name));
	for (size_t i = 0; i < x->nslots; i++)
		pmc_suggest_offer(&s, x->slots[i].id, x->slots[i].id);
	if (s.n == 0 || len < 4)
		return;
	memcpy(buf, " (", 3);
	pmc_suggest_format(&s, buf + 2, len - 3);
	at = strlen(buf);
	memcpy(buf + at, ")", 2);
}

/* Why nothing was compared for slot s (NULL: no such metric in the paired benchmarks),
 * as the end of a sentence about id, with the fix. Returns false when s was compared. */
static bool why_unchecked(const struct ctx *x, const char *id, const struct slot *s, char *buf,
			  size_t len)
{
	char hint[96];

	if (s && s->nvalues)
		return false;
	if (!s) {
		suggest(x, id, hint, sizeof(hint));
		if (!hint[0] && strpbrk(id, "*?["))
			snprintf(hint, sizeof(hint),
				 " (a threshold names one metric id; only '*' alone is a pattern)");
		char skipped[96] = "";

		if (x->c->nskipped)
			snprintf(skipped, sizeof(skipped),
				 " (%zu benchmark%s skipped in one of them %s not compared)",
				 x->c->nskipped, x->c->nskipped == 1 ? "" : "s",
				 x->c->nskipped == 1 ? "is" : "are");
		snprintf(buf, len,
			 "no benchmark in both results has a metric '%s'%s%s; fix the name or "
			 "remove it",
			 id, hint, skipped);
	} else if (!s->selected) {
		snprintf(buf, len,
			 "'%s' is left out by --metric; remove the threshold or add --metric %s",
			 id, id);
	} else if (s->none_side) {
		snprintf(buf, len,
			 "'%s' has values in %s only (%s: %s); remove it or measure it on both "
			 "sides",
			 id, pmc_cmp_side_name(x, s->one_side_old ? SIDE_OLD : SIDE_NEW),
			 pmc_cmp_side_name(x, s->one_side_old ? SIDE_NEW : SIDE_OLD),
			 s->one_side_status);
	} else if (s->nno_values || !s->only_new) {
		snprintf(buf, len,
			 "'%s' has no measured values in either result (%s); remove it or "
			 "measure it",
			 id, s->no_values_status ? s->no_values_status : "absent");
	} else {
		snprintf(buf, len,
			 "'%s' is only in %s: there is no baseline to compare it against; remove "
			 "it or measure it in both",
			 id, pmc_cmp_side_name(x, SIDE_NEW));
	}
	return true;
}

static int add_unchecked(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records one --threshold or --metric that checked nothing, and warns about it. */
static int add_unchecked(struct ctx *x, const char *fmt, ...)
{
	struct pmc_comparison *c = x->c;
	char *msg;
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r = pmc_cmp_lines_push(&c->unchecked, &c->nunchecked, msg);
	return r < 0 ? r : pmc_cmp_warn(c, "%s", msg);
}

/* A --threshold for a metric or a --metric pattern that matched no row with values on
 * both sides checked nothing: a misspelt id, or a metric this machine cannot count. A
 * gate must not pass on a limit it never applied, so each is named (docs/compare.md). */
int pmc_cmp_check_requests(struct ctx *x)
{
	const struct pmc_compare_opts *o = x->o;
	size_t nargs = pmc_thresholds_nargs(o->thresholds);
	char why[640];
	int r;

	for (size_t i = 0; i < nargs; i++) {
		const struct pmc_threshold *th = NULL;
		const char *id = pmc_thresholds_arg(o->thresholds, i, &th);
		size_t k;
		const struct slot *s = pmc_hashmap_get(&x->ids, id, &k) == 0 ? &x->slots[k] : NULL;

		if (!why_unchecked(x, id, s, why, sizeof(why)))
			continue;
		r = add_unchecked(x, "threshold '%.100s=%s' checked nothing: %s", id, th->text,
				  why);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; o->metrics && i < o->nmetrics; i++) {
		const struct slot *best = NULL;
		int rank = 0;

		/* The matching metric that came closest to being compared decides the reason. */
		for (size_t k = 0; k < x->nslots; k++) {
			const struct slot *s = &x->slots[k];
			int sr = s->nvalues ? 4 : s->none_side ? 3 : s->nno_values ? 2 : 1;

			if (sr > rank && fnmatch(o->metrics[i], s->id, 0) == 0) {
				best = s;
				rank = sr;
			}
		}
		if (rank == 4)
			continue;
		if (best) {
			why_unchecked(x, best->id, best, why, sizeof(why));
		} else {
			char hint[96];

			suggest(x, o->metrics[i], hint, sizeof(hint));
			snprintf(why, sizeof(why),
				 "no metric of a benchmark in both results matches it%s; fix the "
				 "pattern or remove it",
				 hint);
		}
		r = add_unchecked(x, "--metric '%.100s' selected nothing to compare: %s",
				  o->metrics[i], why);
		if (r < 0)
			return r;
	}
	return 0;
}
