/* The recording of one run's readings into the result model (run/run_readings.h): the
 * backend's metrics, with their parts on a hybrid CPU, and wait4's figures. */
#include <math.h>
#include <stdio.h>
#include <sys/time.h>

#include "core/result.h"
#include "counters/perf/events.h"
#include "run/run_readings.h"

static double timeval_ns(struct timeval tv)
{
	return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

static int append(struct pmc_benchmark *b, const char *id, double value,
		  const struct pmc_reading *reading)
{
	struct pmc_metric *m;
	int r = pmc_benchmark_metric(b, id, &m);

	if (r < 0)
		return r;
	return pmc_metric_append(m, value, reading);
}

/* The command's peak RSS (ru_maxrss, KiB on Linux: getrusage(2)), or not measured
 * (NAN) when it is not above our own peak, which exec kept in it
 * (pmc_spawn_result.spawner_peak_kb): a command that needs less memory than pmcbench
 * would otherwise show pmcbench's (a `true` "using" 8.5 MiB where time(1) says 1 MiB). */
static int record_max_rss(struct pmc_benchmark *b, const struct pmc_spawn_result *sr)
{
	char note[256];
	struct pmc_metric *m;
	int r = pmc_benchmark_metric(b, "max-rss", &m);

	if (r < 0)
		return r;
	if (sr->ru.ru_maxrss > sr->spawner_peak_kb + sr->spawner_peak_slack_kb)
		return pmc_metric_append(m, (double)sr->ru.ru_maxrss * 1024.0, NULL);
	if (!m->note) {
		snprintf(note, sizeof(note),
			 "a run's peak at or below pmcbench's own (%.1f MiB) is pmcbench's: "
			 "the kernel keeps it across the command's exec (and counts memory per "
			 "CPU, to within %ld KiB)",
			 (double)sr->spawner_peak_kb / 1024.0, sr->spawner_peak_slack_kb);
		if ((r = pmc_metric_set_note(m, note)) < 0)
			return r;
	}
	return pmc_metric_append(m, NAN, NULL);
}

int pmc_run_record_rusage(struct pmc_benchmark *b, const struct pmc_spawn_result *sr)
{
	int r = append(b, "wall-time", (double)sr->wall_ns, NULL);

	if (r == 0)
		r = append(b, "user-time", timeval_ns(sr->ru.ru_utime), NULL);
	if (r == 0)
		r = append(b, "system-time", timeval_ns(sr->ru.ru_stime), NULL);
	if (r == 0)
		r = record_max_rss(b, sr);
	return r;
}

int pmc_run_record_readings(struct pmc_benchmark *b, const struct pmc_backend_ops *be,
			    const struct pmc_backend_session *s, const struct pmc_backend_run *run,
			    char *why, size_t whylen)
{
	const struct pmc_event_list *events = be->events(s);

	for (size_t i = 0; i < be->nmetrics(s); i++) {
		struct pmc_reading_parts parts;
		struct pmc_reading rd;
		struct pmc_metric *m;
		int r = pmc_benchmark_metric(b, be->metric_id(s, i), &m);

		if (r < 0)
			return r;
		m->simulated = be->simulated;
		r = be->run_reading(run, i, &rd, &parts, why, whylen);
		/* Uncore and RAPL: the unit its PMU gives, and what it counts. */
		if (r == 0 && events && i < events->n && m->n == 0) {
			char note[PMC_EVENT_NOTE_MAX];
			bool has =
			    pmc_event_note(events, i, &rd, "the command", note, sizeof(note));

			r = pmc_metric_describe(m, events->events[i].unit, has ? note : NULL);
		}
		if (r < 0)
			return r;
		/* pmc_metric_append keeps the metric's error: the errno only while every run
		 * so far failed with it. */
		r = pmc_metric_append(m, pmc_status_has_value(rd.status) ? rd.scaled : NAN, &rd);
		/* Hybrid CPUs: each core PMU's count beside the sum. */
		if (r == 0 && (parts.n || m->nparts))
			r = pmc_metric_append_parts(m, &parts);
		if (r < 0)
			return r;
	}
	return 0;
}
