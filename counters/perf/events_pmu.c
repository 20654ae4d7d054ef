/* perf's PMU events in an event list: pmu/term,term=value/, the PMU's type and the format
 * of its terms read from sysfs (docs/events.md, "PMU events"); the rest of the list's
 * syntax is events.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "counters/perf/events.h"
#include "counters/perf/events_parse.h"
#include "counters/perf/events_priv.h"
#include "counters/perf/sysfs.h"

static int fail_unknown_pmu(struct parser *p, size_t start, const char *pmu)
{
	struct pmc_suggest s;
	char **pmus = NULL, fallback[160];
	size_t npmus = 0, len = 0;

	fallback[0] = '\0';
	pmc_suggest_init(&s, pmu, strlen(pmu));
	if (pmc_sysfs_names(p->root, NULL, NULL, &pmus, &npmus) == 0) {
		len = (size_t)snprintf(fallback, sizeof(fallback), "PMUs here:");
		for (size_t i = 0; i < npmus; i++) {
			pmc_suggest_offer(&s, pmus[i], pmus[i]);
			if (len < sizeof(fallback))
				len += (size_t)snprintf(fallback + len, sizeof(fallback) - len,
							"%s %s", i ? "," : "", pmus[i]);
		}
		pmc_sysfs_names_free(pmus, npmus);
	}
	if (npmus == 0)
		snprintf(fallback, sizeof(fallback), "no PMU is listed in %s",
			 p->root ? p->root : PMC_SYSFS_ROOT);
	fail(p, start, "unknown PMU '%.40s' (not in %s)", pmu, p->root ? p->root : PMC_SYSFS_ROOT);
	pmc_suggest_append(&s, p->err->message, sizeof(p->err->message), fallback);
	return -EINVAL;
}

static int fail_unknown_term(struct parser *p, size_t at, const char *pmu, const char *term)
{
	static const char *const subs[] = {"events", "format"};
	struct pmc_suggest s;
	char fallback[160];
	size_t len;

	pmc_suggest_init(&s, term, strlen(term));
	len = (size_t)snprintf(fallback, sizeof(fallback), "its events and terms:");
	for (size_t k = 0; k < 2; k++) {
		char **names = NULL;
		size_t n = 0;

		if (pmc_sysfs_names(p->root, pmu, subs[k], &names, &n) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			pmc_suggest_offer(&s, names[i], names[i]);
			if (len < sizeof(fallback))
				len += (size_t)snprintf(fallback + len, sizeof(fallback) - len,
							" %s", names[i]);
		}
		pmc_sysfs_names_free(names, n);
	}
	fail(p, at, "PMU '%.40s' has no event or format term '%.40s'", pmu, term);
	pmc_suggest_append(&s, p->err->message, sizeof(p->err->message), fallback);
	return -EINVAL;
}

static int parse_number(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int builtin_term(const char *name)
{
	if (strcmp(name, "config") == 0)
		return 0;
	if (strcmp(name, "config1") == 0)
		return 1;
	if (strcmp(name, "config2") == 0)
		return 2;
	return -1;
}

/* The terms an alias leaves to the user ("umask=?" in sysfs: perf's parameters), each
 * to be given among the event's own terms, as in pmu/alias,umask=3/. */
struct params {
	char names[8][64];
	size_t n;
	char alias[128]; /* the alias that asked, for the message */
	char event[128]; /* the first alias the user's terms name ("energy-pkg"), or "" */
};

/* Applies the comma-separated terms in text[0..len) to config. at is the column to
 * report for errors inside text when it comes from sysfs (an alias), or SIZE_MAX when
 * text is part of the spec (base is then its offset in the spec). */
static int apply_terms(struct parser *p, const char *pmu, const char *text, size_t len, size_t base,
		       size_t at, int depth, uint64_t config[3], struct params *want)
{
	size_t i = 0;

	while (i <= len) {
		size_t tstart = i, tend, col;
		char term[128], *eq;
		const char *value = NULL;
		struct pmc_sysfs_format f;
		uint64_t v = 1;
		int r, field;

		while (i < len && text[i] != ',')
			i++;
		tend = i++;
		while (tstart < tend && isspace((unsigned char)text[tstart]))
			tstart++;
		while (tend > tstart && isspace((unsigned char)text[tend - 1]))
			tend--;
		col = at != SIZE_MAX ? at : base + tstart;
		if (tend == tstart)
			return fail(p, col,
				    "empty term in PMU event '%.40s/.../'; remove the extra "
				    "comma",
				    pmu);
		if (tend - tstart >= sizeof(term))
			return fail(p, col, "term too long in PMU event '%.40s/.../'", pmu);
		memcpy(term, text + tstart, tend - tstart);
		term[tend - tstart] = '\0';
		eq = strchr(term, '=');
		if (eq && depth > 0 && strcmp(eq + 1, "?") == 0) {
			/* A parameter of the alias: the user's terms must give it. */
			*eq = '\0';
			if (want->n == sizeof(want->names) / sizeof(want->names[0]) ||
			    strlen(term) >= sizeof(want->names[0]))
				return fail(p, col,
					    "too many parameters in a sysfs event of PMU "
					    "'%.40s'",
					    pmu);
			snprintf(want->names[want->n++], sizeof(want->names[0]), "%s", term);
			continue;
		}
		if (eq) {
			*eq = '\0';
			value = eq + 1;
			if (parse_number(value, &v) < 0)
				return fail(
				    p, col,
				    "bad value '%.40s' for term '%.40s' of PMU '%.40s'; write "
				    "a number, decimal or 0x hex, as in event=0x3c",
				    value, term, pmu);
		}
		if (!pmc_sysfs_name_ok(term))
			return fail(p, col,
				    "bad term name '%.40s' in PMU event '%.40s/.../'; write "
				    "name or name=value",
				    term, pmu);
		if (!value && depth == 0) {
			char alias[512];

			r = pmc_sysfs_event_alias(p->root, pmu, term, alias, sizeof(alias));
			if (r == 0) {
				size_t before = want->n;

				if (!want->event[0])
					snprintf(want->event, sizeof(want->event), "%s", term);
				r = apply_terms(p, pmu, alias, strlen(alias), 0, col, depth + 1,
						config, want);
				if (want->n > before)
					snprintf(want->alias, sizeof(want->alias), "%s", term);
				if (r < 0 && strncmp(p->err->message, "in sysfs", 8) != 0) {
					char msg[sizeof(p->err->message)];

					format_cut(msg, sizeof(msg), "%s", p->err->message);
					format_cut(p->err->message, sizeof(p->err->message),
						   "in sysfs event %.40s/%.40s/ (\"%.40s\"): %s",
						   pmu, term, alias, msg);
				}
				if (r < 0)
					return r;
				continue;
			}
			if (r != -ENOENT && r != -ENAMETOOLONG)
				return fail(p, col, "cannot read the sysfs event %.40s/%.40s/: %s",
					    pmu, term, strerror(-r));
		}
		r = pmc_sysfs_format_read(p->root, pmu, term, &f);
		if (r == 0) {
			r = pmc_sysfs_format_apply(&f, v, config);
			if (r < 0)
				return fail(
				    p, col,
				    "value %.40s does not fit term '%.40s' of PMU '%.40s' (%u "
				    "bits); give a smaller value",
				    value ? value : "1", term, pmu, pmc_sysfs_format_width(&f));
			continue;
		}
		if (r == -EOPNOTSUPP)
			return fail(p, col,
				    "term '%.40s' of PMU '%.40s' sets config3, which pmcbench "
				    "does not support; leave it out",
				    term, pmu);
		if (r != -ENOENT && r != -ENAMETOOLONG)
			return fail(p, col,
				    "cannot use term '%.40s' of PMU '%.40s': its sysfs format "
				    "file is unreadable or not 'configN:bits' (%s)",
				    term, pmu, strerror(-r));
		field = builtin_term(term);
		if (field >= 0) {
			if (!value)
				return fail(p, col, "term '%s' needs a value, as in %s=0x3c", term,
					    term);
			config[field] = v;
			continue;
		}
		return fail_unknown_term(p, col, pmu, term);
	}
	return 0;
}

/* Whether the terms text[0..len) give name a value (name=value), wherever it stands. */
static bool has_value_term(const char *text, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && isspace((unsigned char)text[j]))
			j++;
		if (len - j > nl && strncmp(text + j, name, nl) == 0 && text[j + nl] == '=')
			return true;
		while (i < len && text[i] != ',')
			i++;
		i++;
	}
	return false;
}

/* A PMU with a `cpumask` and no `cpus` (uncore, RAPL: tools/perf/util/pmu.c reads it as
 * the CPUs to open on) counts CPUs, not a task; the event alias's .scale, .unit and
 * .per-pkg files say how to read its count. */
static int read_system_wide(struct parser *p, size_t start, const char *pmu, const char *event,
			    struct pmc_event *ev)
{
	char text[PMC_EVENT_CPUS_MAX], name[160];
	int r;

	/* perf's is_pmu_core(): "cpu", "cpum_cf", or a PMU with `cpus` (hybrid CPUs). */
	r = pmc_sysfs_pmu_file(p->root, pmu, "cpus", text, sizeof(text));
	if (r == 0 || strcmp(pmu, "cpu") == 0 || strcmp(pmu, "cpum_cf") == 0)
		return 0;
	r = pmc_sysfs_pmu_file(p->root, pmu, "cpumask", text, sizeof(text));
	if (r == 0) {
		if (pmc_cpu_list_count(text) == 0)
			return fail(p, start,
				    "the cpumask of PMU '%.40s' in sysfs is not a CPU list "
				    "('%.40s')",
				    pmu, text);
		ev->system_wide = true;
		snprintf(ev->cpus, sizeof(ev->cpus), "%s", text);
	} else if (r != -ENOENT) {
		return fail(p, start, "cannot read the cpumask of PMU '%.40s' from sysfs: %s", pmu,
			    strerror(-r));
	}
	if (!event[0])
		return 0;
	snprintf(name, sizeof(name), "%s.scale", event);
	r = pmc_sysfs_event_alias(p->root, pmu, name, text, sizeof(text));
	if (r == 0) {
		char *end;
		double v = strtod(text, &end);

		if (end == text || *end || !(v > 0) || v > 1e300)
			return fail(p, start,
				    "the scale of event %.40s/%.40s/ in sysfs is not a positive "
				    "number ('%.40s')",
				    pmu, event, text);
		ev->scale = v;
	}
	snprintf(name, sizeof(name), "%s.unit", event);
	if (pmc_sysfs_event_alias(p->root, pmu, name, ev->unit, sizeof(ev->unit)) < 0)
		ev->unit[0] = '\0'; /* none (a unit longer than perf's is cut) */
	snprintf(name, sizeof(name), "%s.per-pkg", event);
	if (pmc_sysfs_event_alias(p->root, pmu, name, text, sizeof(text)) == 0)
		ev->per_pkg = strcmp(text, "0") != 0;
	return 0;
}

/* p->pos is at the '/' after the PMU name spec[start..]. */
int pmc_parse_pmu_event(struct parser *p, size_t start, struct pmc_event *ev)
{
	size_t plen = p->pos - start, tstart, tlen, nlen;
	uint64_t config[3] = {0, 0, 0};
	char pmu[PMC_EVENT_NAME_MAX];
	uint32_t type;
	int r;

	if (plen == 0)
		return fail(p, start,
			    "empty PMU name before '/'; write pmu/event/, as in msr/tsc/");
	if (plen >= sizeof(pmu))
		return fail(p, start, "PMU name too long; write pmu/event/, as in msr/tsc/");
	memcpy(pmu, p->spec + start, plen);
	pmu[plen] = '\0';
	tstart = ++p->pos;
	while (peek(p) && peek(p) != '/')
		p->pos++;
	if (!peek(p))
		return fail(p, start,
			    "unterminated PMU event '%.40s'; close the terms with '/', "
			    "as in %s/event/",
			    p->spec + start, pmu);
	tlen = p->pos - tstart;
	p->pos++;
	r = pmc_sysfs_pmu_type(p->root, pmu, &type);
	if (r == -ENOENT || r == -ENAMETOOLONG)
		return fail_unknown_pmu(p, start, pmu);
	if (r < 0)
		return fail(p, start, "cannot read the type of PMU '%s' from sysfs: %s", pmu,
			    strerror(-r));
	if (tlen == 0)
		return fail(p, start,
			    "empty PMU event '%s//'; name an event or give terms, as "
			    "in msr/tsc/",
			    pmu);
	struct params want = {.n = 0, .alias = "", .event = ""};

	r = apply_terms(p, pmu, p->spec + tstart, tlen, tstart, SIZE_MAX, 0, config, &want);
	if (r < 0)
		return r;
	for (size_t k = 0; k < want.n; k++)
		if (!has_value_term(p->spec + tstart, tlen, want.names[k]))
			return fail(p, start,
				    "event '%.40s' of PMU '%.40s' needs a value for '%.40s' (its "
				    "sysfs alias says %s=?); give it, as in %s/%s,%s=1/",
				    want.alias, pmu, want.names[k], want.names[k], pmu, want.alias,
				    want.names[k]);
	nlen = p->pos - start;
	if (nlen > PMC_EVENT_NAME_MAX - 4)
		return fail(p, start, "event name too long (at most %d characters)",
			    PMC_EVENT_NAME_MAX - 4);
	r = read_system_wide(p, start, pmu, want.event, ev);
	if (r < 0)
		return r;
	ev->kind = PMC_EV_PMU;
	ev->type = type;
	ev->config = config[0];
	ev->config1 = config[1];
	ev->config2 = config[2];
	memcpy(ev->name, p->spec + start, nlen);
	ev->name[nlen] = '\0';
	return 0;
}
