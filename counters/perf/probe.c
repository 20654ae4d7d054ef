/* Probing: what this machine can count of an event list, learned by opening the list once
 * on the calling thread, as `perf stat` would (docs/events.md, "Without a hardware PMU").
 * Events the kernel lets count only user space (perf_event_paranoid >= 2 without
 * CAP_PERFMON) are renamed with ":u", as perf does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/counters.h"
#include "base/error.h"
#include "base/opts.h"

struct probe_event {
	enum pmc_status status;
	int error;
	bool user_only;
};

struct pmc_probe_report {
	struct probe_event *events;
	size_t n, nmissing, nuser_only;
	int first_error;
	int paranoid;
	bool has_paranoid;
};

static void read_paranoid(struct pmc_probe_report *r, const char *proc_root)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
		 proc_root ? proc_root : "/proc");
	f = fopen(path, "re");
	if (!f)
		return;
	r->has_paranoid = fscanf(f, "%d", &r->paranoid) == 1;
	fclose(f);
}

/* Whether an event of the list has this name. */
static bool named(const struct pmc_event_list *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->events[i].name, name) == 0)
			return true;
	return false;
}

int pmc_event_list_probe(struct pmc_event_list *list, const struct pmc_probe_opts *opts,
			 struct pmc_probe_report **ret, char *err, size_t errlen)
{
	return pmc_event_list_probe_sys(list, opts, NULL, NULL, ret, err, errlen);
}

int pmc_event_list_probe_sys(struct pmc_event_list *list, const struct pmc_probe_opts *opts,
			     const struct pmc_sys *sys, const char *proc_root,
			     struct pmc_probe_report **ret, char *err, size_t errlen)
{
	/* Opened as a run opens them, leaders to be enabled on exec, which this thread
	 * never does, so nothing counts: arm_pmu's validate_group() leaves a leader that
	 * is merely disabled out of the group's check (drivers/perf/arm_pmu.c,
	 * validate_event), and a group that cannot fit would go unseen until the run. */
	PMC_OPTS(pmc_counters_opts, co, .start_disabled = true, .enable_on_exec = true);
	struct pmc_counters *counters = NULL;
	struct pmc_probe_report *rep;
	struct pmc_reading *rd;
	int r;

	if (!list || !ret || !PMC_OPTS_VALID(opts, pmc_probe_opts)) {
		pmc_err_set(err, errlen, "probing the events: bad arguments");
		return -EINVAL;
	}
	co.user_only_fallback = !PMC_OPTS_GET(opts, no_user_only_fallback, false);
	rep = calloc(1, sizeof(*rep));
	rd = calloc(list->n ? list->n : 1, sizeof(*rd));
	if (!rep || !rd) {
		r = -ENOMEM;
		goto fail_alloc;
	}
	rep->n = list->n;
	rep->events = calloc(list->n ? list->n : 1, sizeof(*rep->events));
	if (!rep->events) {
		r = -ENOMEM;
		goto fail_alloc;
	}
	r = pmc_counters_open_sys(list, &co, sys, &counters);
	if (r < 0)
		goto fail_open;
	r = pmc_counters_read(counters, rd, sizeof(*rd));
	if (r < 0)
		goto fail_read;
	for (size_t i = 0; i < list->n; i++) {
		struct pmc_event *e = &list->events[i];
		struct probe_event *pe = &rep->events[i];

		pmc_counters_open_status(counters, i, &pe->status, &pe->error);
		if (pe->status == PMC_STATUS_UNSUPPORTED || pe->status == PMC_STATUS_DENIED) {
			if (!rep->first_error)
				rep->first_error = pe->error;
			rep->nmissing++;
			continue;
		}
		if (rd[i].user_only && !e->exclude_kernel) {
			size_t nl = strlen(e->name);
			char renamed[sizeof(e->name)];

			snprintf(renamed, sizeof(renamed), "%.*s:u", (int)(sizeof(renamed) - 3),
				 e->name);
			if (named(list, renamed)) {
				/* The list counts the event's user space already: two metrics of
				 * one id would merge their runs. It stays what it is, denied. */
				e->no_user_fallback = true;
				pe->status = PMC_STATUS_DENIED;
				pe->error = EACCES;
				if (!rep->first_error)
					rep->first_error = pe->error;
				rep->nmissing++;
				continue;
			}
			if (nl + 3 <= sizeof(e->name))
				memcpy(e->name + nl, ":u", 3);
			e->exclude_kernel = e->exclude_hv = true;
			pe->user_only = true;
			rep->nuser_only++;
		}
	}
	read_paranoid(rep, proc_root);
	pmc_counters_close(counters);
	free(rd);
	*ret = rep;
	return 0;

fail_read:
	pmc_counters_close(counters);
fail_open:
fail_alloc:
	pmc_err_set(err, errlen, "cannot open counters: %s", strerror(-r));
	pmc_probe_report_free(rep);
	free(rd);
	return r;
}

size_t pmc_probe_report_missing(const struct pmc_probe_report *r)
{
	return r ? r->nmissing : 0;
}

size_t pmc_probe_report_user_only(const struct pmc_probe_report *r)
{
	return r ? r->nuser_only : 0;
}

int pmc_probe_report_first_error(const struct pmc_probe_report *r)
{
	return r ? r->first_error : 0;
}

int pmc_probe_report_event_at(const struct pmc_probe_report *r, size_t i,
			      enum pmc_status *ret_status, int *ret_error, bool *ret_user_only)
{
	if (!r || i >= r->n)
		return -EINVAL;
	if (ret_status)
		*ret_status = r->events[i].status;
	if (ret_error)
		*ret_error = r->events[i].error;
	if (ret_user_only)
		*ret_user_only = r->events[i].user_only;
	return 0;
}

int pmc_probe_report_paranoid(const struct pmc_probe_report *r, int *ret_level)
{
	if (!r || !r->has_paranoid)
		return -ENOENT;
	if (ret_level)
		*ret_level = r->paranoid;
	return 0;
}

void pmc_probe_report_free(struct pmc_probe_report *r)
{
	if (!r)
		return;
	free(r->events);
	free(r);
}
