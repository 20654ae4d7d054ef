/* Derived metrics from the registry's formulas (derive.h, docs/metrics.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/metrics.h"
#include "core/result.h"

/* The modifiers whose inputs pair up; an input of another kind (a time from wait4) has
 * none. */
static const char *const modifiers[] = {"", ":u", ":k"};

/* Whether an input takes the modifier of the derived metric: only counters have one. */
static bool takes_modifier(const char *input)
{
	const struct pmc_metric_info *m = pmc_metric_find(input);

	return !m || m->kind == PMC_METRIC_EVENT || m->kind == PMC_METRIC_SIMULATED;
}

/* The ratio of one run: a number only where both inputs were measured. */
static double ratio(double scale, double num, double den)
{
	return !isnan(num) && !isnan(den) && den > 0 ? scale * num / den : NAN;
}

static int derive_one(struct pmc_benchmark *b, const struct pmc_metric_info *f, const char *mod,
		      const struct pmc_derive_opts *o, const char *sfx)
{
	char id[96], num[96], den[96];
	size_t sl = strlen(sfx);
	const struct pmc_metric *mn, *md;
	struct pmc_metric *m;
	bool num_mod = takes_modifier(f->num), den_mod = takes_modifier(f->den), any = false;
	int r;

	/* Without an input that has the modifier, "ipc:u" would be "ipc" again. */
	if (*mod && !num_mod && !den_mod)
		return 0;
	if ((size_t)snprintf(id, sizeof(id), "%s%s", f->id, mod) >= sizeof(id) ||
	    (size_t)snprintf(num, sizeof(num), "%s%s%s", f->num, num_mod ? mod : "", sfx) >=
		sizeof(num) ||
	    (size_t)snprintf(den, sizeof(den), "%s%s%s", f->den, den_mod ? mod : "", sfx) >=
		sizeof(den))
		return 0;
	if (pmc_benchmark_find_metric(b, id))
		return 0;
	mn = pmc_benchmark_find_metric(b, num);
	md = pmc_benchmark_find_metric(b, den);
	if (!mn || !md || mn->n != md->n)
		return 0;
	for (size_t i = 0; i < mn->n; i++)
		any |= !isnan(ratio(f->scale, mn->values[i], md->values[i]));
	if (!any)
		return 0;
	r = pmc_benchmark_metric(b, id, &m);
	if (r < 0)
		return r;
	/* Adding m may have moved the inputs. */
	mn = pmc_benchmark_find_metric(b, num);
	md = pmc_benchmark_find_metric(b, den);
	m->derived = true;
	/* A ratio of two simulated counts is as exact as they are. */
	m->simulated = mn->simulated && md->simulated;
	/* The events are named without the suffix. */
	num[strlen(num) - sl] = den[strlen(den) - sl] = '\0';
	m->cross_group = o->apart && o->apart(num, den, o->apart_ud);
	for (size_t i = 0; i < mn->n; i++) {
		r = pmc_metric_append(m, ratio(f->scale, mn->values[i], md->values[i]), NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

/* "syscalls:total<tail>": the sum of every syscalls:sys_enter_*<tail> of each run, a
 * number only in runs where each of them was measured (docs/metrics.md, "System calls").
 * tail is what follows the system call's name: "", ":u", "/op". */
static int derive_syscall_total(struct pmc_benchmark *b, const char *tail)
{
	static const char prefix[] = "syscalls:sys_enter_";
	char id[96];
	struct pmc_metric *m;
	double *sum = NULL;
	size_t n = 0, nin = 0;
	int r = 0;

	if ((size_t)snprintf(id, sizeof(id), "syscalls:total%s", tail) >= sizeof(id) ||
	    pmc_benchmark_find_metric(b, id))
		return 0;
	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct pmc_metric *in = &b->metrics[i];
		const char *rest;

		if (strncmp(in->id, prefix, sizeof(prefix) - 1) != 0)
			continue;
		rest = in->id + sizeof(prefix) - 1;
		rest += strspn(rest, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (strcmp(rest, tail) != 0)
			continue;
		if (!sum) {
			n = in->n;
			sum = calloc(n ? n : 1, sizeof(*sum));
			if (!sum)
				return -ENOMEM;
		}
		for (size_t k = 0; k < n; k++)
			sum[k] += k < in->n ? in->values[k] : NAN;
		nin++;
	}
	if (nin < 2)
		goto out; /* one system call needs no total */
	r = pmc_benchmark_metric(b, id, &m);
	if (r < 0)
		goto out;
	m->derived = true;
	for (size_t k = 0; k < n && r == 0; k++)
		r = pmc_metric_append(m, sum[k], NULL);
out:
	free(sum);
	return r;
}

/* "cpu-time" of a command whose task-clock was not counted (denied: perf_event_paranoid 4,
 * a container's seccomp): user-time + system-time of each run, from wait4's rusage, a
 * number where both are. It stands in for task-clock as the CPU time the headline
 * compares (docs/metrics.md, "CPU time without task-clock"). */
static int derive_cpu_time(struct pmc_benchmark *b)
{
	const struct pmc_metric *u, *sy;
	struct pmc_metric *m;
	size_t n;
	int r;

	if (pmc_benchmark_find_metric(b, "cpu-time") ||
	    pmc_metric_any_value(pmc_benchmark_find_metric(b, "task-clock")))
		return 0;
	u = pmc_benchmark_find_metric(b, "user-time");
	sy = pmc_benchmark_find_metric(b, "system-time");
	if (!pmc_metric_any_value(u) || !pmc_metric_any_value(sy) || u->n != sy->n)
		return 0;
	n = u->n;
	r = pmc_benchmark_metric(b, "cpu-time", &m);
	if (r < 0)
		return r;
	/* Adding m may have moved the inputs. */
	u = pmc_benchmark_find_metric(b, "user-time");
	sy = pmc_benchmark_find_metric(b, "system-time");
	m->derived = true;
	for (size_t i = 0; i < n && r == 0; i++)
		r = pmc_metric_append(m, u->values[i] + sy->values[i], NULL);
	return r;
}

int pmc_benchmark_derive(struct pmc_benchmark *b, const struct pmc_derive_opts *opts)
{
	struct pmc_derive_opts o = {0};
	const char *sfx;

	if (!b)
		return -EINVAL;
	o.apart = opts ? opts->apart : NULL;
	o.apart_ud = opts ? opts->apart_ud : NULL;
	sfx = opts ? opts->input_suffix : NULL;
	sfx = sfx ? sfx : "";
	for (size_t i = 0; i < pmc_metric_info_count(); i++) {
		const struct pmc_metric_info *f = pmc_metric_info_at(i);

		if (!f->num)
			continue;
		for (size_t k = 0; k < sizeof(modifiers) / sizeof(modifiers[0]); k++) {
			int r = derive_one(b, f, modifiers[k], &o, sfx);

			if (r < 0)
				return r;
		}
	}
	for (size_t k = 0; k < sizeof(modifiers) / sizeof(modifiers[0]); k++) {
		char tail[16];
		int r;

		snprintf(tail, sizeof(tail), "%s%s", modifiers[k], sfx);
		r = derive_syscall_total(b, tail);
		if (r < 0)
			return r;
	}
	/* A command's runs only: a benchmark program's inputs carry a suffix ("/op"). */
	return *sfx ? 0 : derive_cpu_time(b);
}
