/* The one option parser of every subcommand: getopt_long with the same rules and the
 * same one-line errors everywhere (docs/cli.md): "-oFILE", "-o FILE", "--opt=value",
 * "--opt value", unambiguous abbreviations of long options, "--" ends the options. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "cli/cli.h"

static size_t count_options(const struct option *t)
{
	size_t n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

struct option *pmc_cli_options_merge(const struct option *own, const struct option *shared)
{
	size_t a = count_options(own), b = count_options(shared);
	struct option *t = calloc(a + b + 1, sizeof(*t));

	if (!t)
		return NULL;
	if (a)
		memcpy(t, own, a * sizeof(*t));
	if (b)
		memcpy(t + a, shared, b * sizeof(*t));
	return t;
}

/* The option as written, without any "=value", for an error line. */
static void option_text(const char *arg, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(arg, "="), arg);
}

/* The long options an abbreviation (name, nlen bytes) could stand for, listed in buf;
 * returns how many different options match (an exact match counts alone). */
static size_t long_matches(const struct option *t, const char *name, size_t nlen, char *buf,
			   size_t len)
{
	size_t n = 0, used = 0;

	buf[0] = '\0';
	for (const struct option *o = t; o->name; o++) {
		if (strncmp(o->name, name, nlen) != 0)
			continue;
		if (strlen(o->name) == nlen)
			return 1;
		n++;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s--%s",
						 n > 1 ? ", " : "", o->name);
	}
	return n;
}

static bool is_short(const char *shortopts, int c)
{
	return c > 0 && c < 256 && c != ':' && c != '+' && strchr(shortopts, c);
}

int pmc_cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
		   const char *cmd)
{
	char text[128], list[256], see[160];
	const char *arg;
	int opt;

	opterr = 0;
	opt = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (opt != '?' && opt != ':')
		return opt;
	/* getopt_long has moved optind past the argument at fault, except inside a group
	 * of short options ("-qx"), where optopt names it. */
	arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (opt == ':') {
		if (strncmp(arg, "--", 2) == 0)
			option_text(arg, text, sizeof(text));
		else
			snprintf(text, sizeof(text), "-%c", optopt);
		pmc_cli_error("option '%s' needs a value; %s", text,
			      pmc_cli_see(cmd, see, sizeof(see)));
		return '?';
	}
	if (optopt && !is_short(shortopts, optopt) && optopt < 256) {
		pmc_cli_error("unknown option '-%c'; %s", optopt,
			      pmc_cli_see(cmd, see, sizeof(see)));
		return '?';
	}
	option_text(arg, text, sizeof(text));
	if (optopt) {
		/* A known long option given a value it does not take ("--quiet=yes"). */
		pmc_cli_error("option '%s' takes no value; %s", text,
			      pmc_cli_see(cmd, see, sizeof(see)));
		return '?';
	}
	if (strncmp(text, "--", 2) == 0 && text[2] &&
	    long_matches(longopts, text + 2, strlen(text + 2), list, sizeof(list)) > 1) {
		pmc_cli_error("option '%s' is ambiguous: it could be %s; %s", text, list,
			      pmc_cli_see(cmd, see, sizeof(see)));
		return '?';
	}
	{
		/* "--treshold": did you mean '--threshold'? (issue 19) */
		struct pmc_suggest s;
		char hint[256] = "", name[PMC_SUGGEST_NAME_MAX];
		const char *typed = strncmp(text, "--", 2) == 0 ? text + 2 : NULL;

		if (typed) {
			pmc_suggest_init(&s, typed, strcspn(typed, "="));
			for (const struct option *o = longopts; o->name; o++) {
				snprintf(name, sizeof(name), "--%s", o->name);
				pmc_suggest_offer(&s, o->name, name);
			}
			pmc_suggest_format(&s, hint, sizeof(hint));
		}
		if (hint[0])
			pmc_cli_error("unknown option '%s'; %s", text, hint);
		else
			pmc_cli_error("unknown option '%s'; %s", text,
				      pmc_cli_see(cmd, see, sizeof(see)));
	}
	return '?';
}

int pmc_cli_parse_count(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		pmc_cli_error("%s: '%s' is not a whole number from %llu to %llu", opt, s,
			      (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int pmc_cli_parse_size(const char *opt, const char *s, size_t min, size_t *ret)
{
	uint64_t v;

	if (pmc_cli_parse_count(opt, s, min, PMC_CLI_MAX_COUNT, &v) < 0)
		return -EINVAL;
	*ret = (size_t)v;
	return 0;
}

int pmc_cli_parse_seconds(const char *opt, const char *s, double max, double *ret)
{
	char *end;
	double v = strtod(s, &end);

	/* Google Benchmark's "0.5s": the unit may be written. */
	if (end != s && end[0] == 's' && end[1] == '\0')
		end++;
	if (end == s || *end || !(v > 0) || !isfinite(v) || (max > 0 && v > max)) {
		if (max > 0)
			pmc_cli_error("%s: '%s' is not a number of seconds above 0 (at most %g)",
				      opt, s, max);
		else
			pmc_cli_error("%s: '%s' is not a positive number of seconds", opt, s);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}
