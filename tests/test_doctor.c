/* `pmcbench doctor`'s facts and its one-sentence explanation, on fake /proc and sysfs
 * trees with an emulated PMU (one scenario per reason counters go missing), and on the
 * real machine. */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/counters.h"
#include "counters/perf/doctor.h"
#include "tests/fake_pmu.h"

static char root[256];
static char proc_dir[300], sys_dir[300];
static struct fake_pmu fake;

static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* Create the parent directories. */
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/pmc-test-doctor-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(proc_dir, sizeof(proc_dir), "%s/proc", root);
	snprintf(sys_dir, sizeof(sys_dir), "%s/sys", root);
	return 0;
}

static int teardown(void **state)
{
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return setup(state);
}

static int teardown_last(void **state)
{
	return nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A machine: paranoid level, CapEff, Seccomp, cpuinfo flags, and whether sysfs has a
 * CPU PMU next to the software and msr ones. */
static void machine(int paranoid, const char *capeff, int seccomp, const char *flags, bool cpu_pmu)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%d\n", paranoid);
	put("proc/sys/kernel/perf_event_paranoid", buf);
	put("proc/sys/kernel/nmi_watchdog", "0\n");
	snprintf(buf, sizeof(buf),
		 "Name:\ttest\nUid:\t1000\t1000\t1000\t1000\nCapInh:\t0000000000000000\n"
		 "CapEff:\t%s\nSeccomp:\t%d\nSeccomp_filters:\t0\n",
		 capeff, seccomp);
	put("proc/self/status", buf);
	snprintf(buf, sizeof(buf), "processor\t: 0\nmodel name\t: Test CPU\nflags\t\t: %s\n\n",
		 flags);
	put("proc/cpuinfo", buf);
	put("sys/software/type", "1\n");
	put("sys/msr/type", "9\n");
	put("sys/msr/events/tsc", "event=0x00\n");
	put("sys/msr/format/event", "config:0-63\n");
	if (cpu_pmu) {
		put("sys/cpu/type", "4\n");
		put("sys/cpu/events/cycles", "event=0x3c\n");
		put("sys/cpu/format/event", "config:0-7\n");
	}
}

static struct pmc_doctor collect(const struct fake_pmu_config *cfg)
{
	struct pmc_doctor_opts o = {
	    .proc_root = proc_dir,
	    .sysfs_root = sys_dir,
	    .sys = &fake.sys,
	};
	struct pmc_doctor d;

	fake_pmu_init(&fake, cfg);
	assert_int_equal(pmc_doctor_collect(&o, &d), 0);
	assert_int_equal(fake.nopen, 0);
	return d;
}

static void expect_reason(const struct pmc_doctor *d, int err, const char *needle)
{
	char buf[512];

	pmc_doctor_hw_reason(d, err, buf, sizeof(buf));
	if (!strstr(buf, needle))
		print_error("reason for errno %d: \"%s\", expected \"%s\" in it\n", err, buf,
			    needle);
	assert_non_null(strstr(buf, needle));
	assert_null(strchr(buf, '\n'));
}

/* The development machines: a VM whose hypervisor exposes no PMU. */
static void test_vm_without_pmu(void **state)
{
	struct fake_pmu_config cfg = {.no_pmu = true, .paranoid = 2, .privileged = true};
	struct pmc_doctor d;

	machine(2, "000001ffffffffff", 0, "fpu vme de pse tsc msr hypervisor lahf_lm", false);
	d = collect(&cfg);
	assert_true(d.sysfs_readable);
	assert_string_equal(d.pmus, "msr, software");
	assert_false(d.cpu_pmu);
	assert_int_equal(d.hypervisor, 1);
	assert_true(d.has_paranoid);
	assert_int_equal(d.paranoid, 2);
	assert_true(d.caps_known);
	assert_true(d.cap_perfmon);
	assert_true(d.cap_sys_admin);
	assert_int_equal(d.seccomp, 0);
	assert_int_equal(d.nmi_watchdog, 0);
	assert_int_equal(d.nprobes, 4);
	assert_string_equal(d.probes[0].event, "cycles");
	assert_true(d.probes[0].tried);
	assert_true(d.probes[0].hardware);
	assert_int_equal(d.probes[0].error, ENOENT);
	assert_int_equal(d.probes[1].error, ENOENT);
	assert_string_equal(d.probes[2].event, "task-clock");
	assert_false(d.probes[2].hardware);
	assert_int_equal(d.probes[2].error, 0);
	/* The fake PMU has no msr PMU behind the sysfs entry: ENOENT too. */
	assert_true(d.probes[3].tried);
	assert_int_equal(d.hw_error, ENOENT);
	assert_false(pmc_doctor_hw_ok(&d));
	expect_reason(&d, d.hw_error,
		      "no hardware PMU: this looks like a virtual machine (hypervisor flag set) "
		      "whose hypervisor exposes no PMU; software events work");
	expect_reason(&d, -ENOENT, "virtual machine");
}

static void test_bare_metal_without_cpu_pmu(void **state)
{
	struct fake_pmu_config cfg = {.no_pmu = true, .paranoid = 1};
	struct pmc_doctor d;

	machine(1, "0000000000000000", 0, "fpu vme de pse tsc msr", false);
	d = collect(&cfg);
	assert_int_equal(d.hypervisor, 0);
	assert_false(d.cap_perfmon);
	assert_int_equal(d.hw_error, ENOENT);
	expect_reason(&d, d.hw_error, "the kernel registered no CPU PMU");
}

static void test_pmu_present(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 2, .privileged = true};
	struct pmc_doctor d;

	machine(2, "000001ffffffffff", 0, "fpu tsc msr", true);
	d = collect(&cfg);
	assert_true(d.cpu_pmu);
	assert_string_equal(d.cpu_pmu_name, "cpu");
	assert_int_equal(d.probes[0].error, 0);
	assert_int_equal(d.probes[1].error, 0);
	assert_false(d.probes[0].user_only);
	assert_int_equal(d.hw_error, 0);
	assert_true(pmc_doctor_hw_ok(&d));
	expect_reason(&d, 0, "hardware counters are available");
	/* A single event the PMU lacks. */
	expect_reason(&d, ENOENT, "the CPU PMU (cpu) does not provide this event");
}

/* Apple's M1 under Asahi Linux: one PMU per core type, with dynamic types, that refuse
 * events not excluding the guest (EOPNOTSUPP); cycles counts after the retry. */
static void test_apple_m1(void **state)
{
	struct fake_pmu_config cfg = {
	    .counters = 8, .paranoid = 2, .privileged = true, .need_exclude_guest = true};
	struct pmc_doctor d;

	machine(2, "000001ffffffffff", 0, "", false);
	put("sys/apple_icestorm_pmu/type", "10\n");
	put("sys/apple_icestorm_pmu/cpus", "0-3\n");
	put("sys/apple_firestorm_pmu/type", "11\n");
	put("sys/apple_firestorm_pmu/cpus", "4-7\n");
	d = collect(&cfg);
	assert_true(d.cpu_pmu);
	assert_string_equal(d.cpu_pmu_name, "apple_firestorm_pmu");
	assert_int_equal(d.probes[0].error, 0);
	assert_int_equal(d.probes[1].error, 0);
	assert_true(pmc_doctor_hw_ok(&d));
}

/* Paranoid 2 for an unprivileged user: hardware counts, but only user space. */
static void test_paranoid_2_unprivileged(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 2};
	struct pmc_doctor d;

	machine(2, "0000000000000000", 0, "fpu", true);
	d = collect(&cfg);
	assert_false(d.cap_perfmon);
	assert_false(d.cap_sys_admin);
	assert_int_equal(d.probes[0].error, 0);
	assert_true(d.probes[0].user_only);
	assert_true(pmc_doctor_hw_ok(&d));
	expect_reason(&d, EACCES, "perf_event_paranoid is 2");
	expect_reason(&d, EACCES, ":u");
}

static void test_paranoid_3_unprivileged(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 3};
	struct pmc_doctor d;

	machine(3, "0000000000000000", 0, "fpu", true);
	d = collect(&cfg);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(d.probes[i].error, EACCES);
	assert_int_equal(d.hw_error, EACCES);
	assert_false(pmc_doctor_hw_ok(&d));
	expect_reason(&d, d.hw_error, "perf_event_paranoid is 3");
	expect_reason(&d, d.hw_error, "sysctl kernel.perf_event_paranoid=1");
}

/* CAP_PERFMON alone (bit 38) lifts the paranoid explanation: something else denies. */
static void test_caps_and_seccomp(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 3, .privileged = true};
	struct pmc_doctor d;

	machine(3, "0000004000000000", 2, "fpu", true);
	d = collect(&cfg);
	assert_true(d.caps_known);
	assert_true(d.cap_perfmon);
	assert_false(d.cap_sys_admin);
	assert_int_equal(d.seccomp, 2);
	expect_reason(&d, EPERM, "seccomp filter");
	expect_reason(&d, EACCES, "seccomp");

	machine(3, "0000000000200000", 0, "fpu", true);
	d = collect(&cfg);
	assert_false(d.cap_perfmon);
	assert_true(d.cap_sys_admin);
	expect_reason(&d, EACCES, "security module");
}

static void test_missing_files(void **state)
{
	struct fake_pmu_config cfg = {.no_pmu = true};
	struct pmc_doctor d;

	d = collect(&cfg);
	assert_false(d.sysfs_readable);
	assert_string_equal(d.pmus, "");
	assert_false(d.has_paranoid);
	assert_false(d.caps_known);
	assert_int_equal(d.seccomp, -1);
	assert_int_equal(d.hypervisor, -1);
	assert_int_equal(d.nmi_watchdog, -1);
	/* msr/tsc/ does not exist without its sysfs entry: not tried. */
	assert_false(d.probes[3].tried);
	expect_reason(&d, ENOENT, "no hardware PMU");
	expect_reason(&d, EMFILE, "ulimit -n");
	expect_reason(&d, EBUSY, "busy");
	expect_reason(&d, EINVAL, "EINVAL");
	expect_reason(&d, ETIMEDOUT, "perf_event_open failed");
	assert_int_equal(pmc_doctor_collect(NULL, NULL), -EINVAL);
}

static void test_paranoid_meaning(void **state)
{
	assert_non_null(strstr(pmc_doctor_paranoid_meaning(-1), "no restrictions"));
	assert_non_null(strstr(pmc_doctor_paranoid_meaning(1), "not whole CPUs"));
	assert_non_null(strstr(pmc_doctor_paranoid_meaning(2), "only user space"));
	assert_non_null(strstr(pmc_doctor_paranoid_meaning(3), "may not use perf_event_open"));
	assert_non_null(strstr(pmc_doctor_paranoid_meaning(4), "may not use perf_event_open"));
}

/* The real machine: the doctor's cycles probe agrees with opening cycles directly. */
static void test_real_machine(void **state)
{
	struct pmc_event_list *l = NULL;
	struct pmc_counters_opts o = {.sz = sizeof(o), .user_only_fallback = true};
	struct pmc_counters *c = NULL;
	struct pmc_doctor d;
	char buf[512];
	int err;

	assert_int_equal(pmc_doctor_collect(NULL, &d), 0);
	assert_int_equal(pmc_event_list_parse("cycles", NULL, &l, NULL, 0), 0);
	assert_int_equal(pmc_counters_open(l, &o, &c), 0);
	pmc_counters_open_status(c, 0, NULL, &err);
	pmc_counters_close(c);
	pmc_event_list_free(l);
	assert_int_equal(d.probes[0].error, err);
	pmc_doctor_hw_reason(&d, d.hw_error, buf, sizeof(buf));
	print_message("this machine: pmus %s; hw_error %d: %s\n", d.pmus, d.hw_error, buf);
	assert_true(strlen(buf) > 10);
	assert_true(d.sysfs_readable);
	assert_true(d.has_paranoid);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_vm_without_pmu, teardown),
	    cmocka_unit_test_teardown(test_bare_metal_without_cpu_pmu, teardown),
	    cmocka_unit_test_teardown(test_apple_m1, teardown),
	    cmocka_unit_test_teardown(test_pmu_present, teardown),
	    cmocka_unit_test_teardown(test_paranoid_2_unprivileged, teardown),
	    cmocka_unit_test_teardown(test_paranoid_3_unprivileged, teardown),
	    cmocka_unit_test_teardown(test_caps_and_seccomp, teardown),
	    cmocka_unit_test_teardown(test_missing_files, teardown),
	    cmocka_unit_test(test_paranoid_meaning),
	    cmocka_unit_test(test_real_machine),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown_last);
}
