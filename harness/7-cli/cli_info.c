/* `pmcbench list` (the known events and whether each opens here) and `pmcbench doctor`
 * (why counters are or are not available, in plain words). */
#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/counters.h"
#include "counters/perf/doctor.h"
#include "counters/perf/events.h"
#include "counters/perf/tracefs.h"
#include "counters/valgrind/valgrind.h"
#include "core/metrics.h"
#include "formats/json_out.h"
#include "cli/cli.h"

/* Flushes stdout and checks that everything printed arrived: `pmcbench list >/dev/full`
 * or a closed pipe must exit 2, not 0. Returns the exit code after one error line. */
static int finish_stdout(const char *cmd, const char *what)
{
	int err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return PMC_EXIT_OK;
	err = errno ? errno : EIO;
	pmc_cli_error("%s: cannot write %s to standard output: %s", cmd, what, strerror(err));
	return PMC_EXIT_ERROR;
}

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "error";
}

struct probe_result {
	enum pmc_status status;
	int error;
	bool user_only;
};

/* Opens spec alone on this thread, as `perf stat -e spec true` would, lets it count for
 * a moment and reads it, so the word shown is the status a run would report. */
static int probe_event(const char *spec, struct probe_result *ret)
{
	PMC_OPTS(pmc_counters_opts, o, .user_only_fallback = true);
	struct pmc_event_list *l = NULL;
	struct pmc_counters *c = NULL;
	struct pmc_reading r;
	int err;

	err = pmc_event_list_parse(spec, NULL, &l, NULL, 0);
	if (err < 0)
		return err;
	err = pmc_counters_open(l, &o, &c);
	if (err < 0)
		goto fail_open;
	err = pmc_counters_read(c, &r, sizeof(r));
	if (err < 0)
		goto fail_read;
	ret->status = r.status;
	ret->error = r.error;
	ret->user_only = r.user_only;

fail_read:
	pmc_counters_close(c);
fail_open:
	pmc_event_list_free(l);
	return err;
}

/* Canonical name of a builtin name ("branch-instructions" -> "branches"). */
static void canonical_of(const char *name, char *buf, size_t size)
{
	struct pmc_event_list *l = NULL;

	snprintf(buf, size, "%s", name);
	if (pmc_event_list_parse(name, NULL, &l, NULL, 0) == 0) {
		snprintf(buf, size, "%s", pmc_event_list_name(l, 0));
		pmc_event_list_free(l);
	}
}

/* ---- list ---- */

/* What `pmcbench list` was asked for (docs/cli.md, "list"). */
struct list_ctx {
	const char *filter; /* NULL: everything */
	bool glob;	    /* filter holds * ? or [: fnmatch, else a substring */
	bool probe;
	bool names; /* --names: bare names, one a line, for shell completion */
	bool json;
	json_t *jarr; /* --format json: the entries */
	size_t shown; /* entries that matched */
	bool heading_done;
	int hw_error; /* the errno the hardware events failed with here, 0 if none */
};

static bool str_matches(const struct list_ctx *x, const char *s)
{
	if (!s)
		return false;
	if (x->glob)
		return fnmatch(x->filter, s, FNM_CASEFOLD) == 0;
	return strcasestr(s, x->filter) != NULL;
}

/* FILTER over the name, its canonical name and its description. */
static bool entry_matches(const struct list_ctx *x, const char *name, const char *canon,
			  const char *desc)
{
	return !x->filter || str_matches(x, name) || str_matches(x, canon) || str_matches(x, desc);
}

/* The registry's description of a metric id (harness/2-core/metrics.c), the one place
 * events and metrics are described; NULL for ids it does not know. */
static const char *registry_description(const char *id)
{
	const struct pmc_metric_info *m = pmc_metric_find(id);

	return m ? pmc_metric_info_description(m) : NULL;
}

/* A group's heading, printed before its first matching entry only, so that a filter
 * leaves out the groups it matches nothing in. note: the group's availability here. */
static void group_heading(struct list_ctx *x, const char *title, const char *note)
{
	if (x->names || x->json || x->heading_done)
		return;
	x->heading_done = true;
	printf("%s%s:\n", x->shown ? "\n" : "", title);
	if (note)
		printf("  %s\n", note);
}

/* One entry. status: the word a run would report (NULL: not probed, or said once in
 * the heading). */
static void list_entry(struct list_ctx *x, const char *group, const char *title, const char *note,
		       const char *name, const char *status, const char *desc, const char *alias_of)
{
	char d[256];

	group_heading(x, title, note);
	x->shown++;
	if (alias_of)
		snprintf(d, sizeof(d), "alias of %s", alias_of);
	else
		snprintf(d, sizeof(d), "%s", desc ? desc : "");
	if (x->names) {
		printf("%s\n", name);
		return;
	}
	if (x->json) {
		json_t *e = json_pack("{s:s, s:s, s:s}", "group", group, "name", name,
				      "description", desc ? desc : "");

		if (e && alias_of)
			json_object_set_new(e, "alias_of", json_string(alias_of));
		if (e && status)
			json_object_set_new(e, "status", json_string(status));
		if (e)
			json_array_append_new(x->jarr, e);
		return;
	}
	if (status)
		printf("  %-28s %-12s %s\n", name, status, d);
	else
		printf("  %-28s %s\n", name, d);
}

struct probe_word {
	char word[64];
	int error;
};

static void probe_word(const char *spec, struct probe_word *w)
{
	struct probe_result pr;
	int r = probe_event(spec, &pr);

	w->error = 0;
	if (r < 0) {
		snprintf(w->word, sizeof(w->word), "not-probed");
		return;
	}
	w->error = pr.error;
	snprintf(w->word, sizeof(w->word), "%s%s", pmc_status_name(pr.status),
		 pr.user_only ? ":u" : "");
}

/* The built-in events of one kind. Every event is probed; when all fail alike (a
 * machine without a PMU), the group says so once instead of on every line. */
static void list_builtin(struct list_ctx *x, const char *kind, const char *group, const char *title)
{
	size_t n = pmc_event_builtin_count();
	struct probe_word *w = calloc(n, sizeof(*w));
	char note[600] = "";
	bool same = x->probe && !x->names && w != NULL;
	int first_error = -1;

	for (size_t i = 0; i < n && same; i++) {
		const char *name = pmc_event_builtin_name(i);
		char canon[PMC_EVENT_NAME_MAX];

		if (strcmp(pmc_event_builtin_kind(i), kind) != 0)
			continue;
		canonical_of(name, canon, sizeof(canon));
		if (strcmp(canon, name) != 0 ||
		    !entry_matches(x, name, canon, registry_description(canon)))
			continue;
		probe_word(name, &w[i]);
		if (w[i].error && !x->hw_error && strcmp(kind, "software") != 0)
			x->hw_error = w[i].error;
		if (first_error < 0)
			first_error = w[i].error;
		else if (first_error != w[i].error || !w[i].error)
			first_error = 0;
	}
	if (first_error > 0) {
		struct pmc_doctor d;
		char reason[512] = "";

		if (pmc_doctor_collect(NULL, &d) == 0)
			pmc_doctor_hw_reason(&d, first_error, reason, sizeof(reason));
		snprintf(note, sizeof(note), "not on this machine (%s)%s%s",
			 errno_name(first_error), reason[0] ? ": " : "", reason);
	}
	x->heading_done = false;
	for (size_t i = 0; i < n; i++) {
		const char *name = pmc_event_builtin_name(i);
		char canon[PMC_EVENT_NAME_MAX], word[96];
		const char *desc;
		bool alias;

		if (strcmp(pmc_event_builtin_kind(i), kind) != 0)
			continue;
		canonical_of(name, canon, sizeof(canon));
		alias = strcmp(canon, name) != 0;
		desc = registry_description(canon);
		if (!entry_matches(x, name, canon, desc))
			continue;
		word[0] = '\0';
		if (same && !alias && first_error <= 0) {
			if (w[i].error)
				snprintf(word, sizeof(word), "%s(%s)", w[i].word,
					 errno_name(w[i].error));
			else
				snprintf(word, sizeof(word), "%s", w[i].word);
		}
		list_entry(x, group, title, note[0] ? note : NULL, name, word[0] ? word : NULL,
			   desc, alias ? canon : NULL);
	}
	free(w);
}

static void list_raw(struct list_ctx *x)
{
	const char *desc = "a raw PMU event code in hex, e.g. r00c0";

	x->heading_done = false;
	if (!x->names && entry_matches(x, "rNNNN", NULL, desc))
		list_entry(x, "raw", "Raw events", NULL, "rNNNN", NULL, desc, NULL);
}

static void list_sysfs(struct list_ctx *x)
{
	struct pmc_pmu_events pe;
	char note[160] = "";

	x->heading_done = false;
	if (pmc_pmu_events_list(NULL, &pe) < 0) {
		if (!x->filter && !x->names && !x->json)
			printf("\nPMU events: cannot read %s\n", PMC_SYSFS_ROOT);
		return;
	}
	for (size_t i = 0; i < pe.nevents; i++) {
		char desc[PMC_EVENT_NAME_MAX + 32];
		const char *slash = strchr(pe.events[i], '/');
		struct probe_word w = {0};

		/* sysfs gives an event's encoding, not what it counts: name the PMU. */
		snprintf(desc, sizeof(desc), "PMU event of %.*s",
			 slash ? (int)(slash - pe.events[i]) : (int)strlen(pe.events[i]),
			 pe.events[i]);
		if (!entry_matches(x, pe.events[i], NULL, desc))
			continue;
		if (x->probe && !x->names) {
			probe_word(pe.events[i], &w);
			if (w.error) {
				size_t l = strlen(w.word);

				snprintf(w.word + l, sizeof(w.word) - l, "(%s)",
					 errno_name(w.error));
			}
		}
		list_entry(x, "pmu", "PMU events (from " PMC_SYSFS_ROOT ")", NULL, pe.events[i],
			   w.word[0] ? w.word : NULL, desc, NULL);
	}
	if (!x->filter && !x->names && !x->json) {
		size_t olen = 0;

		if (!pe.nevents)
			printf("\nPMU events: none named in %s on this machine\n", PMC_SYSFS_ROOT);
		for (size_t i = 0; i < pe.nbare; i++)
			if (olen < sizeof(note))
				olen += (size_t)snprintf(note + olen, sizeof(note) - olen, "%s%s",
							 olen ? ", " : "", pe.bare[i]);
		if (olen)
			printf("  PMUs without named events: %s (use pmu/term=value,.../)\n", note);
	}
	pmc_pmu_events_free(&pe);
}

/* The kernel's tracepoints (tracefs: docs/events.md, "Tracepoints"), subsystem:event.
 * Never probed: there are thousands. The whole list names them only in one line; a
 * FILTER, or `list tracepoint [FILTER]` (only), lists them. Returns -1 when only and
 * tracefs cannot be read (after one error line), else 0. */
static int list_tracepoints(struct list_ctx *x, bool only)
{
	char root[4096], err[512] = "", **subs = NULL;
	size_t nsubs = 0, total = 0;

	x->heading_done = false;
	if (pmc_tracefs_find(NULL, true, root, sizeof(root), err, sizeof(err)) < 0 ||
	    pmc_tracefs_names(root, NULL, &subs, &nsubs) < 0) {
		if (only) {
			pmc_cli_error("list tracepoint: %s", err[0] ? err : "cannot read tracefs");
			return -1;
		}
		if (!x->filter && !x->names && !x->json)
			printf("\nTracepoints: %s\n", err);
		return 0;
	}
	for (size_t i = 0; i < nsubs; i++) {
		char **evs = NULL;
		size_t nevs = 0;

		if (pmc_tracefs_names(root, subs[i], &evs, &nevs) < 0)
			continue;
		for (size_t j = 0; j < nevs; j++) {
			char name[PMC_EVENT_NAME_MAX + 8], desc[160];

			total++;
			if (!only && !x->filter)
				continue;
			snprintf(name, sizeof(name), "%s:%s", subs[i], evs[j]);
			snprintf(desc, sizeof(desc), "tracepoint of %s (the kernel's count)",
				 subs[i]);
			if (!entry_matches(x, name, NULL, desc))
				continue;
			list_entry(x, "tracepoint",
				   "Tracepoints (from tracefs; root or CAP_PERFMON)", NULL, name,
				   NULL, desc, NULL);
		}
		pmc_tracefs_names_free(evs, nevs);
	}
	pmc_tracefs_names_free(subs, nsubs);
	if (!only && !x->filter && !x->names && !x->json)
		printf("\nTracepoints: %zu in %s (subsystem:event, globs such as "
		       "'syscalls:sys_enter_*'): pmcbench list tracepoint [FILTER]\n",
		       total, root);
	return 0;
}

/* The metrics `run --backend valgrind` simulates (counters/valgrind/valgrind.h), described by
 * the registry. They are metric ids, not -e events, so --names leaves them out. */
static void list_valgrind(struct list_ctx *x)
{
	static const char *const ids[] = {
#define PMC_VG_M_ID(sym, id) id,
	    PMC_VALGRIND_METRICS(PMC_VG_M_ID)
#undef PMC_VG_M_ID
	};
	char note[PATH_MAX + 64] = "", *path = NULL;

	if (x->names)
		return;
	x->heading_done = false;
	if (x->probe) {
		if (pmc_valgrind_find(&path) == 0)
			snprintf(note, sizeof(note), "valgrind found: %s", path);
		else
			snprintf(note, sizeof(note), "not on this machine: valgrind not found");
		free(path);
	}
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const char *desc = registry_description(ids[i]);

		if (entry_matches(x, ids[i], NULL, desc))
			list_entry(x, "valgrind",
				   "Simulated metrics (run --backend valgrind, docs/valgrind.md)",
				   note[0] ? note : NULL, ids[i], NULL, desc, NULL);
	}
}

/* The metrics computed from others of the same run (the registry's derived ones). */
static void list_derived(struct list_ctx *x)
{
	if (x->names)
		return;
	x->heading_done = false;
	for (size_t i = 0; i < pmc_metric_info_count(); i++) {
		const struct pmc_metric_info *m = pmc_metric_info_at(i);
		const char *id = pmc_metric_info_id(m), *desc = pmc_metric_info_description(m);

		if (pmc_metric_info_kind(m) != PMC_METRIC_DERIVED ||
		    !entry_matches(x, id, NULL, desc))
			continue;
		list_entry(x, "derived", "Derived metrics (computed from the events above)", NULL,
			   id, NULL, desc, NULL);
	}
}

static void list_help(FILE *out)
{
	fputs("Usage: pmcbench list [OPTION]... [FILTER]\n"
	      "  or:  pmcbench list [OPTION]... tracepoint [FILTER]\n"
	      "List the events pmcbench knows, grouped: perf's generic hardware, cache and\n"
	      "software events, raw codes, the PMU events in sysfs, the metrics valgrind\n"
	      "simulates and the derived metrics, each with a one-line description. Each\n"
	      "event is opened once on this process and shown with the status a run would\n"
	      "report for it: counted, scaled, not-counted, unsupported or denied (with the\n"
	      "errno); a group where every event fails alike says so once in its heading.\n"
	      "FILTER keeps the entries whose name or description contains it (ignoring\n"
	      "case), or, when it holds * ? or [, whose name or description it matches as a\n"
	      "shell pattern. 'list tracepoint' lists only the kernel's tracepoints\n"
	      "(subsystem:event, from tracefs), which the whole list counts in one line.\n\n"
	      "  -n, --no-probe     only list the names, do not try to open them\n"
	      "      --names        only the event names, one a line, no headings, not probed\n"
	      "                     (what shell completion of -e reads)\n"
	      "      --format FMT   table (default) or json (an array of objects with group,\n"
	      "                     name, description and, when known, alias_of and status)\n"
	      "  -h, --help         display this help and exit\n\n"
	      "Event lists: -e 'a,b,{c,d}:u,e:k'. Braces group events scheduled together;\n"
	      ":u counts user space only, :k kernel space only. Raw: rNNNN (hex). PMU events:\n"
	      "pmu/event/ or pmu/term=value,.../, e.g. msr/tsc/. See docs/events.md.\n\n"
	      "Exit status: 0 when something was listed, 1 when FILTER matches nothing (as\n"
	      "grep), 2 on a bad option or when the list cannot be written.\n",
	      out);
}

static const struct option list_opts[] = {
    {"no-probe", no_argument, NULL, 'n'},
    {"names", no_argument, NULL, 'N'},
    {"format", required_argument, NULL, 'F'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int unexpected_argument(const char *cmd, const char *arg)
{
	pmc_cli_error("%s: unexpected argument '%s'; see 'pmcbench help %s'", cmd, arg, cmd);
	return PMC_EXIT_ERROR;
}

int pmc_cli_list(int argc, char **argv)
{
	struct list_ctx x = {.probe = true};
	bool only_tp = false;
	int opt, code;

	optind = 0;
	while ((opt = pmc_cli_getopt(argc, argv, ":nh", list_opts, "list")) != -1) {
		switch (opt) {
		case 'h':
			list_help(stdout);
			return finish_stdout("list", "the help");
		case 'n':
			x.probe = false;
			break;
		case 'N':
			x.names = true;
			x.probe = false;
			break;
		case 'F':
			if (strcmp(optarg, "json") == 0) {
				x.json = true;
			} else if (strcmp(optarg, "table") != 0) {
				pmc_cli_error("list: unknown format '%s': use table or json; see "
					      "'pmcbench help list'",
					      optarg);
				return PMC_EXIT_ERROR;
			}
			break;
		default:
			return PMC_EXIT_ERROR;
		}
	}
	if (optind < argc && strcmp(argv[optind], "tracepoint") == 0) {
		only_tp = true; /* perf list tracepoint */
		optind++;
	}
	if (optind < argc)
		x.filter = argv[optind++];
	if (optind < argc)
		return unexpected_argument("list", argv[optind]);
	if (x.filter)
		x.glob = strpbrk(x.filter, "*?[") != NULL;
	if (x.json && !(x.jarr = json_array())) {
		pmc_cli_error("list: out of memory");
		return PMC_EXIT_ERROR;
	}
	if (only_tp) {
		if (list_tracepoints(&x, true) < 0) {
			json_decref(x.jarr);
			return PMC_EXIT_ERROR;
		}
	} else {
		list_builtin(&x, "hardware", "hardware", "Hardware events");
		list_builtin(&x, "hardware-cache", "cache", "Hardware cache events");
		list_builtin(&x, "software", "software", "Software events");
		list_raw(&x);
		list_sysfs(&x);
		list_tracepoints(&x, false);
		list_valgrind(&x);
		list_derived(&x);
	}
	if (x.json) {
		char *s = pmc_json_dumps(x.jarr, JSON_INDENT(2));

		json_decref(x.jarr);
		if (!s) {
			pmc_cli_error("list: out of memory");
			return PMC_EXIT_ERROR;
		}
		printf("%s\n", s);
		free(s);
	} else if (!x.names && !x.filter && !only_tp) {
		printf(
		    "\nModifiers: :u (user space only), :k (kernel space only); groups: {a,b}.\n");
		if (x.probe && x.hw_error)
			printf("See 'pmcbench doctor' for why hardware events fail here.\n");
	}
	code = finish_stdout("list", "the list");
	if (code == PMC_EXIT_OK && x.filter && !x.shown) {
		/* As grep: nothing selected is exit 1, with a word on stderr for a human. */
		pmc_cli_error("list: nothing matches '%s'", x.filter);
		return 1;
	}
	return code;
}

static void doctor_help(FILE *out)
{
	fputs("Usage: pmcbench doctor [OPTION]...\n"
	      "Explain in plain words whether this machine can count hardware events and, if\n"
	      "not, why: the PMUs the kernel registered, a virtual machine without a PMU,\n"
	      "perf_event_paranoid, capabilities, seccomp, and what opening cycles,\n"
	      "instructions, task-clock and msr/tsc/ actually gives.\n\n"
	      "  -h, --help  display this help and exit\n\n"
	      "Exit status: 0 (whatever the findings), 2 on a bad option or when the report\n"
	      "cannot be written.\n",
	      out);
}

static const char *yes_no_unknown(int v, const char *yes, const char *no)
{
	return v > 0 ? yes : v == 0 ? no : "unknown";
}

static const struct option doctor_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int pmc_cli_doctor(int argc, char **argv)
{
	struct pmc_doctor d;
	struct pmc_doctor_kernel k;
	char reason[512];
	bool sw_ok;
	int opt;

	optind = 0;
	while ((opt = pmc_cli_getopt(argc, argv, ":h", doctor_opts, "doctor")) != -1) {
		if (opt != 'h')
			return PMC_EXIT_ERROR;
		doctor_help(stdout);
		return finish_stdout("doctor", "the help");
	}
	if (optind < argc)
		return unexpected_argument("doctor", argv[optind]);
	if (pmc_doctor_collect(NULL, &d) < 0) {
		pmc_cli_error("doctor: cannot collect the facts");
		return PMC_EXIT_ERROR;
	}
	printf("pmcbench doctor: can this machine count?\n\n");
	if (d.cpu_pmu)
		printf("  CPU PMU:              %s\n", d.cpu_pmu_name);
	else
		printf("  CPU PMU:              none registered by the kernel\n");
	printf("  event sources:        %s\n", d.sysfs_readable ? (d.pmus[0] ? d.pmus : "none")
								: "unreadable (" PMC_SYSFS_ROOT
								  ")");
	printf("  virtual machine:      %s\n",
	       yes_no_unknown(d.hypervisor, "yes (the CPU reports the hypervisor flag)",
			      "no hypervisor flag"));
	if (d.has_paranoid)
		printf("  perf_event_paranoid:  %d: %s\n", d.paranoid,
		       pmc_doctor_paranoid_meaning(d.paranoid));
	else
		printf("  perf_event_paranoid:  unknown (no /proc/sys/kernel/perf_event_paranoid: "
		       "a kernel without perf events?)\n");
	if (d.caps_known)
		printf(
		    "  capabilities:         CAP_PERFMON %s, CAP_SYS_ADMIN %s (effective uid "
		    "%u)%s\n",
		    d.cap_perfmon ? "yes" : "no", d.cap_sys_admin ? "yes" : "no", (unsigned)d.euid,
		    d.cap_perfmon || d.cap_sys_admin ? ": perf_event_paranoid does not apply" : "");
	else
		printf("  capabilities:         unknown\n");
	printf("  seccomp:              %s\n",
	       d.seccomp == 0	? "off"
	       : d.seccomp == 1 ? "strict (only read, write, exit: perf_event_open is blocked)"
	       : d.seccomp == 2
		   ? "filter (a container runtime or sandbox may block perf_event_open)"
		   : "unknown");
	printf("  NMI watchdog:         %s\n",
	       yes_no_unknown(d.nmi_watchdog, "on (it keeps one hardware counter busy)", "off"));
	pmc_doctor_kernel_collect(&k);
	printf("\n  kernel event counts (exact, no PMU needed; docs/events.md):\n");
	if (k.tracefs[0])
		printf("    tracefs:            %s\n", k.tracefs);
	else
		printf("    tracefs:            unavailable: %s\n", k.tracefs_why);
	if (k.tracepoint_type >= 0)
		printf("    tracepoint PMU:     type %d; syscalls:sys_enter_getpid %s\n",
		       k.tracepoint_type,
		       k.tracepoint_error == 0	? "opens"
		       : k.tracepoint_error < 0 ? "not tried (no tracefs)"
						: strerror(k.tracepoint_error));
	else
		printf("    tracepoint PMU:     not registered (a kernel without "
		       "CONFIG_TRACEPOINTS)\n");
	if (k.uprobe_type >= 0)
		printf("    uprobe PMU:         type %d%s (function calls: -e uprobe:libc:malloc; "
		       "root or CAP_PERFMON)\n",
		       k.uprobe_type, k.uprobe_retprobe ? ", returns too (%return)" : "");
	else
		printf("    uprobe PMU:         not registered (needs CONFIG_UPROBE_EVENTS, Linux "
		       "4.17+)\n");
	printf("\n  opening each event on this process:\n");
	for (size_t i = 0; i < d.nprobes; i++) {
		const struct pmc_doctor_probe *p = &d.probes[i];

		if (!p->tried)
			printf("    %-14s not available here (no such PMU)\n", p->event);
		else if (p->error)
			printf("    %-14s fails: %s (%s)\n", p->event, errno_name(p->error),
			       strerror(p->error));
		else
			printf("    %-14s opens%s\n", p->event,
			       p->user_only ? ", for user space only (:u)" : "");
	}
	sw_ok = d.probes[2].tried && d.probes[2].error == 0;
	printf("\n");
	if (pmc_doctor_hw_ok(&d)) {
		printf("Verdict: hardware counters work%s.\n",
		       d.probes[0].user_only
			   ? ", for user space only: events are counted with :u (as perf does)"
			   : "");
	} else {
		pmc_doctor_hw_reason(&d, d.hw_error, reason, sizeof(reason));
		printf("Verdict: hardware counters are not available: %s.\n", reason);
		if (sw_ok)
			printf("'pmcbench run' still measures time, task-clock, page faults and "
			       "context switches;\ncycles, instructions, IPC and miss rates are "
			       "reported as unsupported.\n");
		printf("For exact, repeatable instruction and simulated cache/branch counts here,\n"
		       "use 'pmcbench run --backend valgrind' (docs/valgrind.md).\n");
	}
	if (!sw_ok) {
		pmc_doctor_hw_reason(&d, d.probes[2].error, reason, sizeof(reason));
		printf("Software events fail too: %s.\n", reason);
	}
	return finish_stdout("doctor", "the report");
}
