/* The environment fingerprint stored with every result (env.h). A comparison across machines or
 * settings is only meaningful when it can say what differed, so every key here is
 * something known to move counter readings or timings. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "base/grow.h"
#include "counters/backend.h"
#include "core/result.h"
#include "elf/comment.h"
#include "run/env.h"
#include "run/spawn.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

/* The first line of a small file, without its newline, or NULL. */
static char *read_line(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "re");
	char *s = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		s = strdup(buf);
	}
	fclose(f);
	return s;
}

/* Sets key from the first line of path; a file that cannot be read leaves it out. */
static int env_from_file(struct pmc_result *r, const char *key, const char *path)
{
	char *v = read_line(path);
	int rc;

	if (!v)
		return 0;
	rc = pmc_result_set_env(r, key, v);
	free(v);
	return rc;
}

/* The value of the first /proc/cpuinfo field named one of names, trimmed, or NULL. */
static char *cpuinfo_field(const char *const *names)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL, *value = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (!value && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		size_t klen;

		if (!colon)
			continue;
		klen = (size_t)(colon - line);
		while (klen > 0 && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		for (size_t i = 0; names[i]; i++) {
			if (strlen(names[i]) == klen && strncmp(line, names[i], klen) == 0) {
				char *v = colon + 1;

				v += strspn(v, " \t");
				v[strcspn(v, "\n")] = '\0';
				value = strdup(v);
				break;
			}
		}
	}
	free(line);
	fclose(f);
	return value;
}

/* The hypervisor's name from CPUID leaf 0x40000000, which hypervisors reserve for
 * their signature (Intel SDM vol. 2A, CPUID; each vendor documents its string). */
static const char *hypervisor_vendor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static const struct {
		const char *sig, *name;
	} vendors[] = {
	    {"KVMKVMKVM", "KVM"},     {"Microsoft Hv", "Hyper-V"},   {"VMwareVMware", "VMware"},
	    {"XenVMMXenVMM", "Xen"},  {"TCGTCGTCGTCG", "QEMU TCG"},  {"bhyve bhyve ", "bhyve"},
	    {"ACRNACRNACRN", "ACRN"}, {" lrpepyh  vr", "Parallels"}, {"VBoxVBoxVBox", "VirtualBox"},
	};
	unsigned a, b, c, d;
	char sig[13];

	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
		if (strcmp(sig, vendors[i].sig) == 0)
			return vendors[i].name;
#endif
	return NULL;
}

/* "none", the vendor, or "unknown" from the "hypervisor" CPU flag, which x86 guests
 * see; elsewhere there is no such flag and the key is left out. */
static int env_hypervisor(struct pmc_result *r)
{
	static const char *const flags[] = {"flags", NULL};
	char *list = cpuinfo_field(flags);
	const char *value = NULL;
	int rc = 0;

	if (!list)
		return 0;
	for (char *save = NULL, *tok = strtok_r(list, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (strcmp(tok, "hypervisor") == 0) {
			value = hypervisor_vendor();
			if (!value)
				value = "unknown";
			break;
		}
	}
	rc = pmc_result_set_env(r, "hypervisor", value ? value : "none");
	free(list);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The PMUs the kernel offers, sorted and comma-separated ("cpu,msr,software,..."). */
static int env_pmus(struct pmc_result *r)
{
	DIR *d = opendir(SYSFS_PMUS);
	char **names = NULL, *list = NULL;
	size_t n = 0, len = 0;
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (pmc_grow(&names, n, sizeof(*names)) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			rc = -ENOMEM;
			goto out;
		}
		len += strlen(names[n]) + 1;
		n++;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	list = calloc(1, len + 1);
	if (!list) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(list, ",");
		strcat(list, names[i]);
	}
	rc = pmc_result_set_env(r, "pmus", list);
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(list);
	closedir(d);
	return rc;
}

int pmc_env_collect(struct pmc_result *r)
{
	static const char *const model_keys[] = {"model name", "Processor", "cpu model", "cpu",
						 NULL};
	struct utsname u;
	char buf[512];
	char *model;
	long cpus;
	int rc;

	if (uname(&u) == 0) {
		snprintf(buf, sizeof(buf), "%s %s", u.sysname, u.release);
		if ((rc = pmc_result_set_env(r, "kernel", buf)) < 0 ||
		    (rc = pmc_result_set_env(r, "kernel-version", u.version)) < 0 ||
		    (rc = pmc_result_set_env(r, "arch", u.machine)) < 0)
			return rc;
	}
	model = cpuinfo_field(model_keys);
	if (model) {
		rc = pmc_result_set_env(r, "cpu-model", model);
		free(model);
		if (rc < 0)
			return rc;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > 0) {
		snprintf(buf, sizeof(buf), "%ld", cpus);
		if ((rc = pmc_result_set_env(r, "cpus", buf)) < 0)
			return rc;
	}
	if ((rc = env_pmus(r)) < 0 ||
	    (rc = env_from_file(r, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid")) <
		0 ||
	    (rc = env_from_file(r, "nmi-watchdog", "/proc/sys/kernel/nmi_watchdog")) < 0 ||
	    (rc = env_from_file(r, "governor",
				"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")) < 0 ||
	    (rc = env_from_file(r, "smt", "/sys/devices/system/cpu/smt/active")) < 0 ||
	    (rc = env_from_file(r, "aslr", "/proc/sys/kernel/randomize_va_space")) < 0 ||
	    (rc = env_hypervisor(r)) < 0)
		return rc;
	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		if ((rc = pmc_result_set_env(r, "hostname", buf)) < 0)
			return rc;
	}
	return 0;
}

int pmc_env_backend(struct pmc_result *r, const struct pmc_backend_ops *be,
		    const struct pmc_backend_opts *o, const char *program)
{
	struct pmc_backend_env e;
	char version[64];
	int rc = 0;

	be->env(o, &e);
	for (size_t i = 0; rc == 0 && i < e.n && i < PMC_BACKEND_ENV_MAX; i++)
		rc = pmc_result_set_env(r, e.key[i], e.value[i]);
	/* A program that hangs must not hang the run. */
	if (rc == 0 && e.version_key && e.version_arg && program) {
		char *argv[] = {(char *)program, (char *)e.version_arg, NULL};

		if (pmc_spawn_capture_line(program, argv, 10, version, sizeof(version)) == 0)
			rc = pmc_result_set_env(r, e.version_key, version);
	}
	return rc;
}

/* Appends the strings of one binary's .comment (NUL-separated, len bytes) to *text,
 * "; " between them, each once. */
static int append_comment(char **text, size_t *cap, size_t *used, const char *strings, size_t len)
{
	for (const char *s = strings; s < strings + len; s += strlen(s) + 1) {
		size_t n = strlen(s);
		const char *at = *text;

		/* Once: a whole string of the list, between "; " or the ends. */
		while (at && (at = strstr(at, s))) {
			bool starts =
			    at == *text || (at - *text >= 2 && memcmp(at - 2, "; ", 2) == 0);
			bool ends = at[n] == '\0' || strncmp(at + n, "; ", 2) == 0;

			if (starts && ends)
				break;
			at++;
		}
		if (at)
			continue;
		if (pmc_grow_to(text, cap, *used + n + 3, 1) < 0)
			return -ENOMEM;
		if (*used) {
			memcpy(*text + *used, "; ", 2);
			*used += 2;
		}
		memcpy(*text + *used, s, n + 1);
		*used += n;
	}
	return 0;
}

int pmc_env_compiler(struct pmc_result *r, const char *const *paths, size_t n)
{
	char *text = NULL;
	size_t cap = 0, used = 0;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		char *strings = NULL;
		size_t len = 0;

		/* A script, a binary without the section, one that cannot be read: nothing
		 * said of it, nothing guessed. */
		if (paths[i] && pmc_elf_comment(paths[i], &strings, &len) == 0)
			rc = append_comment(&text, &cap, &used, strings, len);
		free(strings);
	}
	if (rc == 0 && used > 0)
		rc = pmc_result_set_env(r, "compiler", text);
	free(text);
	return rc;
}
