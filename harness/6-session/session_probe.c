/* The events a session counts (session_priv.h): parsed, resolved (uprobes), and probed
 * once on this process, which says which are missing here and why. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "core/result.h"
#include "counters/perf/counters.h"
#include "counters/perf/doctor.h"
#include "counters/perf/events.h"
#include "counters/perf/uprobe.h"
#include "run/uprobes.h"
#include "session/session_priv.h"

/* Probes the events once on this process to learn what this machine can count (the
 * library renames user-only events with ":u", as perf does) and says in one message
 * which events are missing and why, unless quiet (the reports and the result still show
 * each missing counter's status); when every event is denied, it says so even when
 * quiet, with what the run goes on with (without). With require, a missing event is an
 * error. Returns 0, or -errno after an error message. */
static int probe_events(const struct pmc_session_printer *pr, struct pmc_event_list *ev,
			bool require, bool quiet, const struct pmc_sys *sys, const char *without,
			bool report_says, char *ret_reason, size_t reason_len, bool *ret_user_only)
{
	struct pmc_probe_report *rep = NULL;
	char missing[1024] = "", reason[512] = "", fell_back[1024] = "", err[256] = "";
	char nofit[1024] = "", krec[512] = "";
	size_t nmissing, ndenied = 0, len = 0, flen = 0, nlen = 0, klen = 0, nkrec = 0;
	size_t n = pmc_event_list_count(ev);
	int first_err, level = -1, r;

	*ret_user_only = false;
	r = pmc_event_list_probe_sys(ev, NULL, sys, NULL, &rep, err, sizeof(err));
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		struct pmc_event_desc d = {.sz = sizeof(d)};
		enum pmc_status st;
		bool user_only;
		int error;

		pmc_event_list_describe(ev, i, &d);
		pmc_probe_report_event_at(rep, i, &st, &error, &user_only);
		if (d.exclude_kernel)
			*ret_user_only = true;
		if (user_only && flen < sizeof(fell_back) - 64)
			flen += (size_t)snprintf(fell_back + flen, sizeof(fell_back) - flen, "%s%s",
						 flen ? ", " : "", d.name);
		if (st == PMC_STATUS_NOT_COUNTED && error == PMC_ERROR_NO_FIT &&
		    nlen < sizeof(nofit) - 64)
			nlen += (size_t)snprintf(nofit + nlen, sizeof(nofit) - nlen, "%s%s",
						 nlen ? ", " : "", d.name);
		ndenied += st == PMC_STATUS_DENIED;
		/* Denied for want of the :u fallback, which would count nothing of it. */
		if (st == PMC_STATUS_DENIED && !d.exclude_kernel &&
		    pmc_event_kernel_recorded(d.type, d.config)) {
			nkrec++;
			if (klen < sizeof(krec) - 64)
				klen += (size_t)snprintf(krec + klen, sizeof(krec) - klen, "%s%s",
							 klen ? ", " : "", d.name);
		}
		if ((st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) &&
		    len < sizeof(missing) - 64)
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? ", " : "", d.name);
	}
	if (pmc_probe_report_paranoid(rep, &level) < 0)
		level = -1;
	if (flen && !quiet) {
		char lv[16] = "?";

		if (level >= 0)
			snprintf(lv, sizeof(lv), "%d", level);
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"counting user space only for %s: the kernel denies kernel-space "
				"counting (perf_event_paranoid=%s); see 'pmcbench doctor'",
				fell_back, lv);
	}
	if (nlen && require) {
		pmc_session_say(
		    pr, PMC_SESSION_ERROR,
		    "%s cannot be counted: it does not fit the PMU together with the "
		    "rest of its group; put ':W' after the group to open its events one "
		    "by one, or drop --require-counters",
		    nofit);
		pmc_probe_report_free(rep);
		return -EINVAL;
	}
	if (nlen && !quiet)
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"%s not counted: it does not fit the PMU together with the rest of "
				"its group; put ':W' after the group to open its events one by one",
				nofit);
	nmissing = pmc_probe_report_missing(rep);
	first_err = pmc_probe_report_first_error(rep);
	pmc_probe_report_free(rep);
	if (nmissing == 0)
		return 0;
	{
		struct pmc_doctor_opts dopts = {.sys = sys};
		struct pmc_doctor d;

		if (pmc_doctor_collect(&dopts, &d) == 0)
			pmc_doctor_hw_reason(&d, first_err, reason, sizeof(reason));
		else
			snprintf(reason, sizeof(reason), "%s", strerror(first_err));
	}
	if (nkrec && level == 2) {
		/* The kernel records them in kernel mode only (counters/perf/events.h,
		 * pmc_event_kernel_recorded()): paranoid's own advice, :u, counts 0 of them. */
		char why[384];

		snprintf(why, sizeof(why),
			 "denied: perf_event_paranoid is 2, so unprivileged users may count only "
			 "user space, and the kernel records %s in kernel mode only (a :u count "
			 "is always 0); run 'sysctl kernel.perf_event_paranoid=1' as root, or "
			 "grant CAP_PERFMON",
			 nkrec == 1 ? "this event" : "these events");
		if (nkrec == nmissing)
			snprintf(reason, sizeof(reason), "%s", why);
		else if (!quiet && !require)
			pmc_session_say(pr, PMC_SESSION_NOTE, "%s not counted: %s", krec, why);
	}
	snprintf(ret_reason, reason_len, "%s", reason);
	if (require) {
		pmc_session_say(pr, PMC_SESSION_ERROR,
				"%zu event%s cannot be counted (%s): %s; drop --require-counters "
				"to go on without them (see 'pmcbench doctor')",
				nmissing, nmissing == 1 ? "" : "s", missing, reason);
		return -EINVAL;
	}
	/* Every event denied (perf_event_paranoid=4 on GitHub's runners) leaves no counter
	 * at all: that changes what the whole run means, so it is said even when quiet. */
	if (ndenied == n)
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"every event is denied (%s): %s; going on without counters, with "
				"%s; see 'pmcbench doctor'",
				missing, reason, without);
	else if (!quiet && !report_says)
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"%zu event%s not counted (%s): %s; see 'pmcbench doctor'", nmissing,
				nmissing == 1 ? "" : "s", missing, reason);
	return 0;
}

int pmc_session_note_missing(struct pmc_result *r, const char *reason)
{
	for (size_t i = 0; reason[0] && i < r->nbench; i++)
		for (size_t k = 0; k < r->benchmarks[i].nmetrics; k++) {
			struct pmc_metric *m = &r->benchmarks[i].metrics[k];
			bool counted = false;

			if (!m->has_status || m->note || m->n == 0)
				continue;
			for (size_t j = 0; j < m->n && !counted; j++)
				counted = m->status[j] != PMC_STATUS_UNSUPPORTED &&
					  m->status[j] != PMC_STATUS_DENIED;
			if (!counted && pmc_metric_set_note(m, reason) < 0)
				return -ENOMEM;
		}
	return 0;
}

/* Function-call events (uprobe:LIBRARY:SYMBOL) resolved through the measured program's
 * linking: the first command's executable, or this benchmark program itself. */
static int resolve_uprobes(struct pmc_event_list *events, const struct pmc_runner_cmd *cmds,
			   bool attached, const char *spec, const struct pmc_sys *sys,
			   const struct pmc_session_printer *pr, struct pmc_uprobe_set **ret_probes)
{
	char err[1024], *found = NULL;
	const char *program = NULL;
	int r;

	if (cmds) {
		program = cmds[0].path;
		if (!program && pmc_find_executable(cmds[0].argv[0], &found) == 0)
			program = found;
	}
	r = pmc_uprobes_resolve(events, program, err, sizeof(err));
	free(found);
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "--events '%s': %s", spec, err);
		return r;
	}
	r = pmc_uprobes_probe(events, sys, !cmds && !attached, ret_probes, err, sizeof(err));
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		return r;
	}
	if (err[0])
		pmc_session_say(pr, PMC_SESSION_NOTE, "%s", err);
	/* Each counted call traps into the kernel (a breakpoint, then a single step): the
	 * counts are exact, the times beside them are not the program's own. */
	for (size_t i = 0; i < events->n; i++)
		if (events->events[i].kind == PMC_EV_UPROBE) {
			pmc_session_say(
			    pr, PMC_SESSION_NOTE,
			    "uprobe events trap into the kernel on every call they count: "
			    "the times of this run are disturbed by that (microseconds a "
			    "call here); gate on the counts, time without -e uprobe:...");
			break;
		}
	return 0;
}

/* Two events with one metric id (after aliases: "cs" is "context-switches") would
 * record two samples per run under one name. */
static int check_duplicate_events(const struct pmc_event_list *ev, const char *spec,
				  const struct pmc_session_printer *pr)
{
	for (size_t i = 0; i < ev->n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(ev->events[i].name, ev->events[j].name) == 0) {
				pmc_session_say(pr, PMC_SESSION_ERROR,
						"--events '%s': '%s' is given twice (aliases count "
						"as the same event); give each event once",
						spec, ev->events[i].name);
				return -EINVAL;
			}
	return 0;
}

int pmc_session_events_probe(const struct pmc_session_cfg *cfg, struct pmc_runner_opts *ro,
			     const char *spec, bool brief, struct pmc_session_events *ev)
{
	const struct pmc_session_printer *pr = &cfg->pr;
	bool commands = !cfg->benchmarks, attached = ro->nattach || ro->system_wide;
	char err[1024] = "";
	int r;

	r = pmc_event_list_parse(spec, NULL, &ev->events, err, sizeof(err));
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "--events '%s': %s", spec, err);
		return r;
	}
	if ((r = check_duplicate_events(ev->events, spec, pr)) < 0)
		return r;
	/* Attached, a library's functions are the processes', not the load's. */
	if ((r = resolve_uprobes(ev->events, commands && !attached ? cfg->cmds : NULL, attached,
				 spec, ro->sys, pr, &ev->probes)) < 0)
		return r;
	/* Looked up once for the probe, the doctor's reason and every run's open. */
	pmc_hybrid_machine_share(ev->events, &ro->sys, &ev->machine_sys, &ev->machine);
	if ((r = pmc_events_hold(ev->events, &ev->held)) < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		return r;
	}
	return probe_events(pr, ev->events, cfg->require_counters, cfg->quiet, ro->sys,
			    commands ? "what wait4 measures (wall-time, user-time, system-time, "
				       "max-rss)"
				     : "the clock's wall-time/op",
			    brief, ev->missing_why, sizeof(ev->missing_why), &ev->user_only);
}

void pmc_session_events_clear(struct pmc_session_events *ev)
{
	pmc_events_release(ev->held);
	pmc_uprobe_set_free(ev->probes); /* every counter on them closed */
	pmc_event_list_free(ev->events);
	ev->held = NULL;
	ev->probes = NULL;
	ev->events = NULL;
}
