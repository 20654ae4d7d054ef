/* Facts behind `pmcbench doctor` (see doctor.h). Uses only counters/ and libc. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/perf/counters.h"
#include "counters/perf/doctor.h"
#include "counters/perf/events.h"
#include "counters/perf/sysfs.h"
#include "counters/perf/tracefs.h"
#include "base/opts.h"

/* linux/capability.h numbers; CAP_PERFMON appeared in Linux 5.8. */
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static const char *const probe_events[PMC_DOCTOR_PROBES] = {
    "cycles",
    "instructions",
    "task-clock",
    "msr/tsc/",
};

static int read_line_file(const char *root, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	FILE *f;
	size_t len;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	len = strlen(buf);
	while (len > 0 && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	return 0;
}

static bool parse_int(const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < INT_MIN || v > INT_MAX)
		return false;
	*ret = (int)v;
	return true;
}

static void collect_proc_sys(struct pmc_doctor *d, const char *proc)
{
	char buf[64];
	int v;

	if (read_line_file(proc, "sys/kernel/perf_event_paranoid", buf, sizeof(buf)) == 0 &&
	    parse_int(buf, &v)) {
		d->paranoid = v;
		d->has_paranoid = true;
	}
	d->nmi_watchdog = -1;
	if (read_line_file(proc, "sys/kernel/nmi_watchdog", buf, sizeof(buf)) == 0 &&
	    parse_int(buf, &v))
		d->nmi_watchdog = v != 0;
}

static void collect_status(struct pmc_doctor *d, const char *proc)
{
	char path[PATH_MAX], line[256];
	FILE *f;

	d->seccomp = -1;
	if (snprintf(path, sizeof(path), "%s/self/status", proc) >= (int)sizeof(path))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (strncmp(line, "CapEff:", 7) == 0) {
			char *end;
			unsigned long long caps;

			errno = 0;
			caps = strtoull(line + 7, &end, 16);
			if (!errno && end != line + 7) {
				d->caps_known = true;
				d->cap_perfmon = caps >> CAP_PERFMON_BIT & 1;
				d->cap_sys_admin = caps >> CAP_SYS_ADMIN_BIT & 1;
			}
		} else if (strncmp(line, "Seccomp:", 8) == 0) {
			char *s = line + 8;
			size_t len;

			while (isspace((unsigned char)*s))
				s++;
			len = strlen(s);
			while (len > 0 && isspace((unsigned char)s[len - 1]))
				s[--len] = '\0';
			if (parse_int(s, &v))
				d->seccomp = v;
		}
	}
	fclose(f);
}

static void collect_cpuinfo(struct pmc_doctor *d, const char *proc)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;

	d->hypervisor = -1;
	if (snprintf(path, sizeof(path), "%s/cpuinfo", proc) >= (int)sizeof(path))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	/* x86 lists CPU features on a "flags" line; "hypervisor" is the CPUID bit a
	 * hypervisor sets for its guests. Other architectures have no such flag. */
	while (getline(&line, &cap, f) > 0) {
		char *tok, *save = NULL;

		if (strncmp(line, "flags", 5) != 0)
			continue;
		d->hypervisor = 0;
		for (tok =
			 strtok_r(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \t\n", &save);
		     tok; tok = strtok_r(NULL, " \t\n", &save))
			if (strcmp(tok, "hypervisor") == 0)
				d->hypervisor = 1;
		break;
	}
	free(line);
	fclose(f);
}

static bool is_cpu_pmu(const char *name, uint32_t type)
{
	/* The core PMU registers as PERF_TYPE_RAW (x86 "cpu" or hybrid "cpu_core", the
	 * first ARM PMU); hybrid x86 adds "cpu_atom" with a dynamic type; Apple's M1 and M2
	 * have one per core type ("apple_icestorm_pmu", "apple_firestorm_pmu", ...). */
	size_t len = strlen(name);

	return type == PERF_TYPE_RAW || strcmp(name, "cpu") == 0 || strncmp(name, "cpu_", 4) == 0 ||
	       strncmp(name, "armv", 4) == 0 ||
	       (strncmp(name, "apple_", 6) == 0 && len > 10 && strcmp(name + len - 4, "_pmu") == 0);
}

static void collect_pmus(struct pmc_doctor *d, const char *sysfs)
{
	char **names = NULL;
	size_t n = 0, len = 0;

	if (pmc_sysfs_names(sysfs, NULL, NULL, &names, &n) < 0)
		return;
	d->sysfs_readable = true;
	for (size_t i = 0; i < n; i++) {
		uint32_t type = UINT32_MAX;

		if (pmc_sysfs_pmu_type(sysfs, names[i], &type) < 0)
			continue;
		if (len < sizeof(d->pmus))
			len += (size_t)snprintf(d->pmus + len, sizeof(d->pmus) - len, "%s%s",
						len ? ", " : "", names[i]);
		if (!d->cpu_pmu && is_cpu_pmu(names[i], type)) {
			d->cpu_pmu = true;
			snprintf(d->cpu_pmu_name, sizeof(d->cpu_pmu_name), "%.63s", names[i]);
		}
	}
	pmc_sysfs_names_free(names, n);
}

static void probe(struct pmc_doctor_probe *p, const char *event, const char *sysfs,
		  const struct pmc_sys *sys)
{
	PMC_OPTS(pmc_event_list_opts, lo, .sysfs_root = sysfs);
	PMC_OPTS(pmc_counters_opts, o, .user_only_fallback = true);
	struct pmc_event_list *l = NULL;
	struct pmc_counters *c = NULL;
	enum pmc_status st;
	int r;

	snprintf(p->event, sizeof(p->event), "%s", event);
	if (pmc_event_list_parse(event, &lo, &l, NULL, 0) < 0)
		return;
	p->hardware = pmc_event_is_hardware(&l->events[0]);
	r = pmc_counters_open_sys(l, &o, sys, &c);
	p->tried = true;
	if (r < 0) {
		p->error = -r;
	} else {
		struct pmc_reading reading;

		pmc_counters_open_status(c, 0, &st, &p->error);
		if (pmc_counters_opened(c) == 1 &&
		    pmc_counters_read(c, &reading, sizeof(reading)) == 0)
			p->user_only = reading.user_only;
		pmc_counters_close(c);
	}
	pmc_event_list_free(l);
}

int pmc_doctor_collect(const struct pmc_doctor_opts *opts, struct pmc_doctor *ret)
{
	const char *proc = "/proc", *sysfs = NULL;
	const struct pmc_sys *sys = NULL;
	struct pmc_doctor d;

	if (!ret)
		return -EINVAL;
	if (opts) {
		proc = opts->proc_root ? opts->proc_root : proc;
		sysfs = opts->sysfs_root;
		sys = opts->sys;
	}
	memset(&d, 0, sizeof(d));
	d.euid = geteuid();
	collect_proc_sys(&d, proc);
	collect_status(&d, proc);
	collect_cpuinfo(&d, proc);
	collect_pmus(&d, sysfs);
	for (size_t i = 0; i < PMC_DOCTOR_PROBES; i++)
		probe(&d.probes[i], probe_events[i], sysfs, sys);
	d.nprobes = PMC_DOCTOR_PROBES;
	for (size_t i = 0; i < 2; i++) {
		if (d.probes[i].tried && d.probes[i].error) {
			d.hw_error = d.probes[i].error;
			break;
		}
	}
	*ret = d;
	return 0;
}

bool pmc_doctor_hw_ok(const struct pmc_doctor *d)
{
	return d && d->hw_error == 0 && d->probes[0].tried && d->probes[1].tried;
}

const char *pmc_doctor_paranoid_meaning(int level)
{
	/* Documentation/admin-guide/sysctl/kernel.rst, "perf_event_paranoid"; 3 is the
	 * Debian/Ubuntu patch that upstream kernels treat like 2. */
	if (level < 0)
		return "no restrictions: every user may count everything";
	if (level == 0)
		return "unprivileged users may count user and kernel space, per task and per CPU, "
		       "but not raw tracepoints";
	if (level == 1)
		return "unprivileged users may count user and kernel space of their own tasks, "
		       "but not whole CPUs";
	if (level == 2)
		return "unprivileged users may count only user space (:u) of their own tasks";
	return "unprivileged users may not use perf_event_open at all on Debian and Ubuntu "
	       "kernels (elsewhere: like 2)";
}

static bool privileged(const struct pmc_doctor *d)
{
	return d->cap_perfmon || d->cap_sys_admin;
}

const char *pmc_doctor_hw_reason(const struct pmc_doctor *d, int err, char *buf, size_t size)
{
	if (!buf || size == 0)
		return buf;
	if (err < 0)
		err = -err;
	if (!d) {
		snprintf(buf, size, "perf_event_open failed: %s", strerror(err));
		return buf;
	}
	switch (err) {
	case 0:
		snprintf(buf, size, "hardware counters are available");
		break;
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP: {
		const char *sw =
		    d->probes[2].tried && d->probes[2].error == 0 ? "; software events work" : "";

		if (d->cpu_pmu)
			snprintf(buf, size,
				 "the CPU PMU (%s) does not provide this event on this CPU model; "
				 "other hardware events may work (see 'pmcbench list')",
				 d->cpu_pmu_name);
		else if (d->hypervisor == 1)
			snprintf(
			    buf, size,
			    "no hardware PMU: this looks like a virtual machine (hypervisor flag "
			    "set) whose hypervisor exposes no PMU%s",
			    sw);
		else
			snprintf(buf, size,
				 "no hardware PMU: the kernel registered no CPU PMU in "
				 "/sys/bus/event_source/devices (CPU or kernel without perf "
				 "support)%s",
				 sw);
		break;
	}
	case EACCES:
	case EPERM:
		if (d->seccomp == 2 && err == EPERM)
			snprintf(buf, size,
				 "denied: a seccomp filter (as container runtimes install) blocks "
				 "perf_event_open; run outside the container or allow the syscall "
				 "in its seccomp profile");
		else if (d->has_paranoid && d->paranoid >= 3 && !privileged(d))
			snprintf(
			    buf, size,
			    "denied: perf_event_paranoid is %d, which forbids perf_event_open to "
			    "unprivileged users; run 'sysctl kernel.perf_event_paranoid=1' as "
			    "root, or grant CAP_PERFMON",
			    d->paranoid);
		else if (d->has_paranoid && d->paranoid == 2 && !privileged(d))
			snprintf(
			    buf, size,
			    "denied: perf_event_paranoid is 2, so unprivileged users may count "
			    "only user space; add :u to the events, run 'sysctl "
			    "kernel.perf_event_paranoid=1' as root, or grant CAP_PERFMON");
		else if (d->seccomp == 2)
			snprintf(
			    buf, size,
			    "denied although perf_event_paranoid and capabilities allow it: the "
			    "seccomp filter on this process (a container?) may block "
			    "perf_event_open");
		else
			snprintf(buf, size,
				 "denied although perf_event_paranoid and capabilities allow it: a "
				 "security module (SELinux, AppArmor, lockdown) may block "
				 "perf_event_open");
		break;
	case EINVAL:
	case E2BIG:
		snprintf(buf, size,
			 "the kernel rejected the event's attributes (%s): this PMU does not "
			 "support the event or its modifiers",
			 err == EINVAL ? "EINVAL" : "E2BIG");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, size, "out of file descriptors; raise the limit with 'ulimit -n'");
		break;
	case EBUSY:
		snprintf(buf, size,
			 "the PMU is busy: another tool holds its counters exclusively; stop it "
			 "and retry");
		break;
	default:
		snprintf(buf, size, "perf_event_open failed: %s", strerror(err));
		break;
	}
	return buf;
}

void pmc_doctor_kernel_collect(struct pmc_doctor_kernel *ret)
{
	struct pmc_sysfs_format f;
	struct pmc_event_list *l = NULL;
	struct pmc_counters *c = NULL;
	uint32_t type;

	memset(ret, 0, sizeof(*ret));
	ret->tracepoint_type = ret->uprobe_type = -1;
	ret->tracepoint_error = -1;
	if (pmc_sysfs_pmu_type(NULL, "tracepoint", &type) == 0)
		ret->tracepoint_type = (int)type;
	if (pmc_sysfs_pmu_type(NULL, "uprobe", &type) == 0)
		ret->uprobe_type = (int)type;
	ret->uprobe_retprobe = pmc_sysfs_format_read(NULL, "uprobe", "retprobe", &f) == 0;
	if (pmc_tracefs_find(NULL, true, ret->tracefs, sizeof(ret->tracefs), ret->tracefs_why,
			     sizeof(ret->tracefs_why)) < 0) {
		ret->tracefs[0] = '\0';
		return;
	}
	if (pmc_event_list_parse("syscalls:sys_enter_getpid", NULL, &l, NULL, 0) == 0) {
		PMC_OPTS(pmc_counters_opts, o, .pid = 0); /* this thread */
		struct pmc_reading r;

		ret->tracepoint_error = pmc_counters_open(l, &o, &c);
		if (ret->tracepoint_error == 0 && pmc_counters_read(c, &r, sizeof(r)) == 0)
			ret->tracepoint_error = r.error;
		ret->tracepoint_error =
		    ret->tracepoint_error < 0 ? -ret->tracepoint_error : ret->tracepoint_error;
		pmc_counters_close(c);
		pmc_event_list_free(l);
	}
}
