/* `pmcbench list` (the known events and whether each opens here) and `pmcbench doctor`
 * (why counters are or are not available, in plain words). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"
#include "counters/doctor.h"
#include "counters/events.h"
#include "harness/cli/cli.h"

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
	err = pmc_counters_read(c, &r);
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

static void print_status(const char *label, const char *spec, bool probe, int *hw_error)
{
	struct probe_result pr;
	int r;

	if (!probe) {
		printf("  %s\n", label);
		return;
	}
	r = probe_event(spec, &pr);
	if (r < 0) {
		printf("  %-30s could not be probed: %s\n", label, strerror(-r));
		return;
	}
	if (pr.error) {
		printf("  %-30s %s (%s)\n", label, pmc_status_name(pr.status),
		       errno_name(pr.error));
		if (hw_error && !*hw_error)
			*hw_error = pr.error;
	} else {
		printf("  %-30s %s%s\n", label, pmc_status_name(pr.status),
		       pr.user_only ? " (user space only: :u)" : "");
	}
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

static void list_builtin(const char *kind, const char *title, bool probe, int *hw_error)
{
	printf("%s:\n", title);
	for (size_t i = 0; i < pmc_event_builtin_count(); i++) {
		const char *name = pmc_event_builtin_name(i);
		char canon[PMC_EVENT_NAME_MAX];

		if (strcmp(pmc_event_builtin_kind(i), kind) != 0)
			continue;
		canonical_of(name, canon, sizeof(canon));
		if (strcmp(canon, name) != 0) {
			printf("  %-30s alias of %s\n", name, canon);
			continue;
		}
		print_status(name, name, probe, hw_error);
	}
	printf("\n");
}

static void list_sysfs(bool probe)
{
	struct pmc_pmu_events pe;
	char other[512] = "";
	size_t olen = 0;

	printf("PMU events (from %s):\n", PMC_SYSFS_ROOT);
	if (pmc_pmu_events_list(NULL, &pe) < 0) {
		printf("  (cannot read %s)\n\n", PMC_SYSFS_ROOT);
		return;
	}
	for (size_t i = 0; i < pe.nevents; i++)
		print_status(pe.events[i], pe.events[i], probe, NULL);
	for (size_t i = 0; i < pe.nbare; i++)
		if (olen < sizeof(other))
			olen += (size_t)snprintf(other + olen, sizeof(other) - olen, "%s%s",
						 olen ? ", " : "", pe.bare[i]);
	pmc_pmu_events_free(&pe);
	if (olen)
		printf("  PMUs without named events: %s (use pmu/term=value,.../)\n", other);
	printf("\n");
}

static void list_help(FILE *out)
{
	fputs("Usage: pmcbench list [OPTION]...\n"
	      "List the events pmcbench knows: perf's generic hardware and cache events, the\n"
	      "software events, raw codes and the PMU events in sysfs. Each is opened once on\n"
	      "this process and shown with the status a run would report for it: counted,\n"
	      "scaled, not-counted, unsupported or denied (with the errno).\n\n"
	      "  -n, --no-probe  only list the names, do not try to open them\n"
	      "  -h, --help      display this help and exit\n\n"
	      "Event lists: -e 'a,b,{c,d}:u,e:k'. Braces group events scheduled together;\n"
	      ":u counts user space only, :k kernel space only. Raw: rNNNN (hex). PMU events:\n"
	      "pmu/event/ or pmu/term=value,.../, e.g. msr/tsc/. See docs/events.md.\n\n"
	      "Exit status: 0 on success, 2 on a bad option or when the list cannot be\n"
	      "written.\n",
	      out);
}

static const struct option list_opts[] = {
	{"no-probe", no_argument, NULL, 'n'},
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
	bool probe = true;
	int hw_error = 0, opt;

	optind = 0;
	while ((opt = pmc_cli_getopt(argc, argv, ":nh", list_opts, "list")) != -1) {
		if (opt == 'h') {
			list_help(stdout);
			return finish_stdout("list", "the help");
		}
		if (opt != 'n')
			return PMC_EXIT_ERROR;
		probe = false;
	}
	if (optind < argc)
		return unexpected_argument("list", argv[optind]);
	list_builtin("hardware", "Hardware events", probe, &hw_error);
	list_builtin("hardware-cache", "Hardware cache events", probe, &hw_error);
	list_builtin("software", "Software events", probe, NULL);
	printf("Raw events:\n  %-30s a raw PMU event code in hex, e.g. r00c0\n\n", "rNNNN");
	list_sysfs(probe);
	printf("Modifiers: :u (user space only), :k (kernel space only); groups: {a,b}.\n");
	if (probe && hw_error) {
		struct pmc_doctor d;
		char reason[512];

		if (pmc_doctor_collect(NULL, &d) == 0) {
			pmc_doctor_hw_reason(&d, hw_error, reason, sizeof(reason));
			printf("Note: hardware events fail here: %s (see 'pmcbench doctor').\n",
			       reason);
		}
	}
	return finish_stdout("list", "the list");
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
