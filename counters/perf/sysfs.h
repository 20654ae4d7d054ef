/* Private to counters/: reading PMU descriptions from sysfs, as the kernel documents
 * them in Documentation/ABI/testing/sysfs-bus-event_source-devices-{format,events}:
 * <root>/<pmu>/type holds perf_event_attr.type, events/<name> holds an alias such as
 * "event=0x3c,umask=0x00", and format/<term> says where a term's bits go in the
 * attribute, such as "config:0-7" or "config1:0-7,32-35". */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "pmcbench/events.h" /* PMC_SYSFS_ROOT */

#define PMC_SYSFS_FORMAT_MAX_RANGES 8

/* Where a format term's value goes: config, config1 or config2 (field 0, 1, 2), its
 * bits spread over ranges, lowest value bits into the first range. */
struct pmc_sysfs_format {
	int field;
	size_t nranges;
	struct {
		unsigned lo, hi;
	} ranges[PMC_SYSFS_FORMAT_MAX_RANGES];
};

/* True for a name that may be used as one path component (no '/', not "." or ".."). */
int pmc_sysfs_name_ok(const char *name);

/* Reads <root>/<pmu>/type. Returns 0, -ENOENT when there is no such PMU, -EINVAL when
 * the file does not hold a number, or another -errno. */
int pmc_sysfs_pmu_type(const char *root, const char *pmu, uint32_t *ret);

/* Reads <root>/<pmu>/<name> (such as "cpumask") into buf, without the trailing newline.
 * Returns 0, -ENOENT when there is no such file, -ENAMETOOLONG or another -errno. */
int pmc_sysfs_pmu_file(const char *root, const char *pmu, const char *name, char *buf, size_t size);

/* Reads the alias <root>/<pmu>/events/<name> into buf, without the trailing newline.
 * Returns 0, -ENOENT, -ENAMETOOLONG or another -errno. */
int pmc_sysfs_event_alias(const char *root, const char *pmu, const char *name, char *buf,
			  size_t size);

/* Reads and parses <root>/<pmu>/format/<term>. Returns 0, -ENOENT when there is no such
 * term, -EINVAL when its contents are not "configN:lo[-hi][,lo[-hi]...]", -EOPNOTSUPP
 * for fields pmcbench does not carry (config3), or another -errno. */
int pmc_sysfs_format_read(const char *root, const char *pmu, const char *term,
			  struct pmc_sysfs_format *ret);

/* Parses the contents of a format file (exposed for tests). Same returns as above. */
int pmc_sysfs_format_parse(const char *text, struct pmc_sysfs_format *ret);

/* Number of value bits the format holds. */
unsigned pmc_sysfs_format_width(const struct pmc_sysfs_format *f);

/* Puts value into config[field] at the format's bits, clearing what was there first
 * (so a later term overrides an earlier one). Returns 0, or -ERANGE when the value has
 * bits beyond the format's width. */
int pmc_sysfs_format_apply(const struct pmc_sysfs_format *f, uint64_t value, uint64_t config[3]);

/* Sorted names in <root> (sub == NULL: the PMUs) or in <root>/<pmu>/<sub> (sub is
 * "events" or "format"), skipping hidden files and the ".scale"/".unit"/".snapshot"/
 * ".per-pkg" companions of event aliases. Returns 0 with a malloc'd array (free with
 * pmc_sysfs_names_free), or -errno (-ENOENT when the directory does not exist). */
int pmc_sysfs_names(const char *root, const char *pmu, const char *sub, char ***ret, size_t *ret_n);
void pmc_sysfs_names_free(char **names, size_t n);
