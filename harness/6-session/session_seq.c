/* `pmcbench run --runs auto -c A -c B --threshold METRIC=LIMIT` (docs/compare.md,
 * "Sequential"): after every round the sequential rule (harness/2-core/sequential.h)
 * decides each limit's metric of each command against the reference, and the rounds stop
 * once all are decided, or at --max-runs or --max-time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "core/result.h"
#include "core/sequential.h"
#include "pmcbench/counters.h"
#include "reporters/escape.h"
#include "session/session.h"

static struct pmc_seq_opts seq_opts(const struct pmc_session_seq *s)
{
	return (struct pmc_seq_opts){.alpha = s->cmp->alpha, .max_rounds = s->max_runs};
}

int pmc_session_seq_check_opts(struct pmc_session_seq *s, size_t ncmds,
			       const struct pmc_session_printer *pr)
{
	struct pmc_seq_opts o;
	struct pmc_seq_check chk;
	struct pmc_result *shape = NULL;
	size_t first;
	int r;

	o = seq_opts(s);
	/* The limits are checked on the shape of the result to come: its commands, no runs. */
	r = pmc_result_new("perf", &shape);
	for (size_t i = 0; r == 0 && i < ncmds; i++) {
		char name[32];
		struct pmc_benchmark *b;

		snprintf(name, sizeof(name), "%zu", i);
		r = pmc_result_add_benchmark(shape, name, NULL, &b);
	}
	if (r == 0)
		r = pmc_seq_check_result(shape, s->ref, s->cmp->thresholds, &o, &chk, s->err,
					 sizeof(s->err));
	pmc_result_free(shape);
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s",
				r == -ENOMEM ? "out of memory" : s->err);
		return -EINVAL;
	}
	first = pmc_seq_min_rounds(chk.alpha_each);
	pmc_seq_check_clear(&chk);
	if (s->max_runs < first) {
		pmc_session_say(
		    pr, PMC_SESSION_ERROR,
		    "--max-runs %zu: the sequential rule cannot decide before round %zu "
		    "at this alpha and number of limits; allow more rounds",
		    s->max_runs, first);
		return -EINVAL;
	}
	s->start_s = pmc_clock_s();
	return 0;
}

bool pmc_session_seq_round_done(void *ud, const struct pmc_result *r, size_t round)
{
	struct pmc_session_seq *s = ud;
	struct pmc_seq_opts o;
	struct pmc_seq_check chk;
	bool done;

	o = seq_opts(s);
	if (s->max_time_s > 0 && pmc_clock_s() - s->start_s >= s->max_time_s) {
		s->out_of_time = true;
		return true;
	}
	s->error =
	    pmc_seq_check_result(r, s->ref, s->cmp->thresholds, &o, &chk, s->err, sizeof(s->err));
	if (s->error < 0)
		return true;
	/* A limit whose metric has no values after a round never will: say so now rather
	 * than run every round and pass undecided (a gate must not pass because it could
	 * not see). One whose values were measured but 0 on a side in every round so far
	 * (a ratio needs both positive) may have a ratio in the next: user-time is the CPU
	 * time split by where the timer's ticks fell, so a short command's is often 0. That
	 * one is an error only once the rule could have decided. */
	for (size_t i = 0; i < chk.n; i++)
		if (chk.v[i].res.n == 0) {
			const struct pmc_benchmark *b =
			    pmc_result_find_benchmark(r, chk.v[i].bench);
			const struct pmc_metric *m =
			    b ? pmc_benchmark_find_metric(b, chk.v[i].metric) : NULL;
			const struct pmc_metric *mref =
			    s->ref < r->nbench
				? pmc_benchmark_find_metric(&r->benchmarks[s->ref], chk.v[i].metric)
				: NULL;
			char why[200] = "not measured on this machine?";

			if (pmc_metric_any_value(m) && pmc_metric_any_value(mref)) {
				if (round < pmc_seq_min_rounds(chk.alpha_each))
					continue;
				snprintf(why, sizeof(why),
					 "0 on one side in every round: a ratio needs both "
					 "positive; limit a metric this command resolves, such as "
					 "wall-time");
			} else if (m && m->has_status && m->n &&
				   !pmc_status_has_value(m->status[m->n - 1])) {
				/* A counter the kernel refused says so: denied is not
				 * "no change". */
				snprintf(why, sizeof(why), "%s on this machine, see the note above",
					 pmc_status_name(m->status[m->n - 1]));
			}
			snprintf(
			    s->err, sizeof(s->err),
			    "--threshold %s=%s: '%s' has no value of %s in round %zu (%s); the "
			    "limit cannot be decided",
			    chk.v[i].metric, chk.v[i].limit, chk.v[i].bench, chk.v[i].metric, round,
			    why);
			s->error = -ENODATA;
			break;
		}
	done = s->error < 0 || chk.undecided == 0;
	pmc_seq_check_clear(&chk);
	return done;
}

static const char *decision_name(enum pmc_seq_decision d)
{
	switch (d) {
	case PMC_SEQ_REGRESSION:
		return "regression";
	case PMC_SEQ_NO_REGRESSION:
		return "no regression";
	default:
		return "undecided";
	}
}

int pmc_session_seq_settle(struct pmc_session_seq *s, struct pmc_result *r,
			   const struct pmc_session_printer *pr)
{
	struct pmc_seq_opts o;
	struct pmc_seq_check *chk = &s->chk;
	size_t rounds = r->design.rounds;
	char why[160];

	o = seq_opts(s);
	if (s->error < 0 || pmc_seq_check_result(r, s->ref, s->cmp->thresholds, &o, chk, s->err,
						 sizeof(s->err)) < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "--runs auto: %s", s->err);
		return -EINVAL;
	}
	if (chk->undecided == 0)
		snprintf(why, sizeof(why), "decided after %zu rounds", rounds);
	else if (s->out_of_time)
		snprintf(why, sizeof(why),
			 "--max-time %g s reached after %zu rounds, %zu undecided", s->max_time_s,
			 rounds, chk->undecided);
	else
		snprintf(why, sizeof(why), "--max-runs %zu reached, %zu undecided", rounds,
			 chk->undecided);
	free(r->design.stopped);
	r->design.stopped = strdup(why);
	if (!r->design.stopped) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		return -EINVAL;
	}
	return 0;
}

/* The decisions, as the terminal shows them or as Markdown; with gate, the gate's. */
static void print_decisions(FILE *out, const struct pmc_session_seq *s, const struct pmc_result *r,
			    bool md, bool gate, enum pmc_decision d)
{
	const struct pmc_seq_check *chk = &s->chk;

	fprintf(out,
		"\n%sSequential decision (--runs auto): %s.%s Each interval is an anytime-valid "
		"confidence sequence for the median per-round ratio at alpha %.3g per metric "
		"(docs/statistics.md, \"Sequential rounds\"); the comparison table is "
		"descriptive.\n%s",
		md ? "**" : "", r->design.stopped, md ? "**" : "", chk->alpha_each, md ? "\n" : "");
	for (size_t i = 0; i < chk->n; i++) {
		const struct pmc_seq_metric *m = &chk->v[i];

		/* Names from the command line or a result file: escaped for where they go. */
		fputs(md ? "- " : "  ", out);
		(md ? pmc_escape_md : pmc_escape_text)(out, m->bench);
		fputc(' ', out);
		(md ? pmc_escape_md : pmc_escape_text)(out, m->metric);
		fputs(": ", out);
		if (m->res.bounded)
			fprintf(out, "%+.2f%% [%+.2f%%, %+.2f%%] after %zu rounds, ",
				(exp(m->res.estimate) - 1) * 100, (exp(m->res.lo) - 1) * 100,
				(exp(m->res.hi) - 1) * 100, m->res.n);
		else
			fprintf(out, "no interval yet after %zu rounds, ", m->res.n);
		fputs("limit ", out);
		(md ? pmc_escape_md : pmc_escape_text)(out, m->limit);
		fprintf(out, ": %s\n", decision_name(m->res.decision));
	}
	if (gate)
		fprintf(out, "%sgate: %s\n", md ? "\n" : "",
			d == PMC_DECISION_REGRESSION ? "FAIL (regression)"
			: d == PMC_DECISION_INCONCLUSIVE
			    ? "FAIL (undecided, --fail-on-inconclusive)"
			: chk->undecided ? "PASS (some metrics undecided)"
					 : "PASS");
}

enum pmc_decision pmc_session_seq_report(struct pmc_session_seq *s, const struct pmc_result *r,
					 FILE *out, bool gate, const struct pmc_session_printer *pr)
{
	struct pmc_seq_check *chk = &s->chk;
	const char *path = s->cmp->report;
	bool md = strcmp(s->cmp->format, "markdown") == 0;
	enum pmc_decision d = PMC_DECISION_PASS;

	if (gate && chk->regressions)
		d = PMC_DECISION_REGRESSION;
	else if (gate && chk->undecided && s->cmp->fail_on_inconclusive)
		d = PMC_DECISION_INCONCLUSIVE;
	print_decisions(out, s, r, false, gate, d);
	/* The report file holds what decided too, after the comparison. */
	if (path) {
		FILE *f = fopen(path, "ae");

		if (f)
			print_decisions(f, s, r, md, gate, d);
		if (!f || fclose(f) != 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR,
					"cannot add the sequential decision to %s: %s", path,
					strerror(errno));
			d = PMC_DECISION_ERROR;
		}
	}
	pmc_seq_check_clear(chk);
	return d;
}

void pmc_session_seq_clear(struct pmc_session_seq *s)
{
	pmc_seq_check_clear(&s->chk);
}
