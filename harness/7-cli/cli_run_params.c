/* `pmcbench run`'s parameter scans, as hyperfine's: -L VAR a,b,c and -P VAR MIN MAX
 * (with -D STEP) give each command once per value, {VAR} replaced by it in the command,
 * its -n name and the --setup, --prepare and --cleanup commands; several give every
 * combination (cli_run_priv.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "cli/cli.h"
#include "cli/cli_run_priv.h"

/* More commands than a run could measure in a day; also bounds the check of their names,
 * which compares every pair. */
#define MAX_COMMANDS 10000
/* Digits of a -P bound or step: its scaled value stays far inside 64 bits. */
#define MAX_DIGITS 15

static bool is_var_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* A new parameter named name for opt (its spelling in messages), or NULL after an error
 * line (-EINVAL) or when memory ran out (-ENOMEM in *ret_r). */
static struct run_param *new_param(struct run_cli *c, const char *opt, const char *name, int *ret_r)
{
	*ret_r = -EINVAL;
	if (!is_var_name(name)) {
		pmc_cli_error(
		    "%s '%s': a parameter's name is a letter or '_', then letters, digits "
		    "or '_', as in %s n 1,10,100",
		    opt, name, opt);
		return NULL;
	}
	for (size_t i = 0; i < c->nparams; i++) {
		if (strcmp(c->params[i].name, name) == 0) {
			pmc_cli_error("%s %s: parameter '%s' is given twice; give each parameter "
				      "once, with all its values",
				      opt, name, name);
			return NULL;
		}
	}
	if (pmc_grow(&c->params, c->nparams, sizeof(*c->params)) < 0) {
		*ret_r = -ENOMEM;
		return NULL;
	}
	c->params[c->nparams] = (struct run_param){.name = name};
	return &c->params[c->nparams++];
}

static int add_value(struct run_param *p, char *v)
{
	if (pmc_grow(&p->values, p->nvalues, sizeof(*p->values)) < 0) {
		free(v);
		return -ENOMEM;
	}
	p->values[p->nvalues++] = v;
	return 0;
}

int pmc_cli_run_param_list(struct run_cli *c, const char *name, const char *list)
{
	struct run_param *p;
	const char *s = list;
	int r;

	if (!list) {
		pmc_cli_error("--parameter-list %s: no values; give them after the name, "
			      "comma-separated: -L %s 1,10,100",
			      name, is_var_name(name) ? name : "n");
		return -EINVAL;
	}
	p = new_param(c, "--parameter-list", name, &r);
	if (!p)
		return r;
	if (!*list) {
		pmc_cli_error("--parameter-list %s '': no values; give them comma-separated, as "
			      "in -L %s 1,10,100",
			      name, name);
		return -EINVAL;
	}
	/* As hyperfine splits: at every comma, so 'a,,b' holds an empty value. */
	for (;;) {
		size_t len = strcspn(s, ",");
		char *v = strndup(s, len);

		if (!v || add_value(p, v) < 0)
			return -ENOMEM;
		for (size_t i = 0; i + 1 < p->nvalues; i++) {
			if (strcmp(p->values[i], v) == 0) {
				pmc_cli_error("--parameter-list %s '%s': the value '%s' is given "
					      "twice; give each value once",
					      name, list, v);
				return -EINVAL;
			}
		}
		if (!s[len])
			break;
		s += len + 1;
	}
	return 0;
}

int pmc_cli_run_param_scan(struct run_cli *c, const char *name, const char *min, const char *max)
{
	struct run_param *p;
	int r;

	if (!min || !max) {
		pmc_cli_error("--parameter-scan %s: give the first and the last value after the "
			      "name: -P %s 1 10",
			      name, is_var_name(name) ? name : "n");
		return -EINVAL;
	}
	p = new_param(c, "--parameter-scan", name, &r);
	if (!p)
		return r;
	p->min = min;
	p->max = max;
	return 0;
}

/* A decimal number as -P and -D take it: [-]DIGITS[.DIGITS]. Its value times 10^frac
 * goes to *ret, its digits after the point to *ret_frac. */
static int parse_decimal(const char *s, long long *ret, int *ret_frac)
{
	long long v = 0;
	int digits = 0, frac = -1;
	bool neg = *s == '-';

	if (neg)
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; *s; s++) {
		if (*s == '.' && frac < 0 && isdigit((unsigned char)s[1])) {
			frac = 0;
			continue;
		}
		if (!isdigit((unsigned char)*s) || ++digits > MAX_DIGITS)
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (frac >= 0)
			frac++;
	}
	*ret = neg ? -v : v;
	*ret_frac = frac < 0 ? 0 : frac;
	return 0;
}

static long long pow10ll(int n)
{
	long long p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

/* v / 10^scale, written with scale digits after the point. */
static char *format_scaled(long long v, int scale)
{
	long long unit = pow10ll(scale), a = v < 0 ? -v : v;
	char *s = NULL;
	int n;

	if (scale == 0)
		n = asprintf(&s, "%lld", v);
	else
		n = asprintf(&s, "%s%lld.%0*lld", v < 0 ? "-" : "", a / unit, scale, a % unit);
	return n < 0 ? NULL : s;
}

/* The values of a -P from its bounds and the step. */
static int expand_scan(struct run_param *p, const char *step)
{
	const char *what[3] = {p->min, p->max, step ? step : "1"};
	long long v[3];
	int frac[3], scale = 0;
	unsigned long long count;

	for (int i = 0; i < 3; i++) {
		if (parse_decimal(what[i], &v[i], &frac[i]) < 0) {
			pmc_cli_error("%s '%s': not a number; write digits, with a '.' for a "
				      "fraction (at most %d digits), as in %s",
				      i < 2 ? "--parameter-scan" : "--parameter-step-size", what[i],
				      MAX_DIGITS, i < 2 ? "-P n 1 10" : "-D 0.5");
			return -EINVAL;
		}
		if (frac[i] > scale)
			scale = frac[i];
	}
	/* All three get the most decimals any has: each must keep within MAX_DIGITS then
	 * (the values between stay far inside 64 bits; "-D 0.00000000000001" made 15 digits
	 * 29 and overflowed). */
	for (int i = 0; i < 3; i++) {
		int more = scale - frac[i];

		if (more > 0 && llabs(v[i]) >= pow10ll(MAX_DIGITS - more)) {
			pmc_cli_error("%s '%s': with %d digits after the point, as the other "
				      "values have, it has more than %d; give fewer digits",
				      i < 2 ? "--parameter-scan" : "--parameter-step-size", what[i],
				      scale, MAX_DIGITS);
			return -EINVAL;
		}
		v[i] *= pow10ll(more);
	}
	if (v[2] <= 0) {
		pmc_cli_error("--parameter-step-size '%s': the step must be above 0", what[2]);
		return -EINVAL;
	}
	if (v[0] > v[1]) {
		pmc_cli_error("--parameter-scan %s %s %s: the first value is above the last; give "
			      "them in rising order",
			      p->name, p->min, p->max);
		return -EINVAL;
	}
	count = (unsigned long long)(v[1] - v[0]) / (unsigned long long)v[2] + 1;
	if (count > MAX_COMMANDS) {
		pmc_cli_error("--parameter-scan %s %s %s gives %llu values, more than %d; take a "
			      "larger step (-D)",
			      p->name, p->min, p->max, count, MAX_COMMANDS);
		return -EINVAL;
	}
	for (unsigned long long k = 0; k < count; k++) {
		char *s = format_scaled(v[0] + (long long)k * v[2], scale);

		if (!s || add_value(p, s) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Whether s holds "{name}". */
static bool uses(const char *s, const char *name)
{
	size_t len = strlen(name);

	for (const char *q = s ? strchr(s, '{') : NULL; q; q = strchr(q + 1, '{'))
		if (strncmp(q + 1, name, len) == 0 && q[1 + len] == '}')
			return true;
	return false;
}

int pmc_cli_run_params_finish(struct run_cli *c, int argc, char **argv, int first)
{
	unsigned long long ncombos = 1;
	bool scan = false;
	int r;

	for (size_t i = 0; i < c->nparams; i++) {
		struct run_param *p = &c->params[i];

		if (p->min) {
			scan = true;
			if ((r = expand_scan(p, c->param_step)) < 0)
				return r;
		}
		ncombos *= p->nvalues;
		if (ncombos * (c->ncmd_strings ? c->ncmd_strings : 1) > MAX_COMMANDS) {
			pmc_cli_error("the parameters give more than %d commands; give fewer "
				      "values",
				      MAX_COMMANDS);
			return -EINVAL;
		}
	}
	if (c->param_step && !scan) {
		pmc_cli_error("--parameter-step-size is the step of --parameter-scan; give -P VAR "
			      "MIN MAX too, or drop it");
		return -EINVAL;
	}
	for (size_t i = 0; i < c->nparams; i++) {
		const char *name = c->params[i].name;
		bool used = uses(c->ro.setup, name) || uses(c->ro.prepare, name) ||
			    uses(c->ro.cleanup, name) || uses(c->pending_name, name);

		for (size_t k = 0; !used && k < c->ncmd_strings; k++)
			used = uses(c->cmd_strings[k], name) ||
			       (k < c->nnames && uses(c->names[k], name));
		for (int k = first; !used && !c->ncmd_strings && k < argc; k++)
			used = uses(argv[k], name);
		if (!used) {
			pmc_cli_error(
			    "parameter '%s' is used nowhere: no command, -n name, --setup, "
			    "--prepare or --cleanup holds {%s}; put {%s} where its value "
			    "goes, as in -c 'sort -k{%s} file'",
			    name, name, name, name);
			return -EINVAL;
		}
	}
	c->ncombos = (size_t)ncombos;
	return 0;
}

const char *pmc_cli_run_param_value(const struct run_cli *c, size_t i, size_t combo)
{
	for (size_t j = c->nparams; j-- > i + 1;)
		combo /= c->params[j].nvalues;
	return c->params[i].values[combo % c->params[i].nvalues];
}

char *pmc_cli_run_subst(const struct run_cli *c, const char *s, size_t combo)
{
	size_t cap = 0, len = 0;
	char *out = NULL;

	if (pmc_grow_to(&out, &cap, strlen(s) + 1, 1) < 0)
		return NULL;
	/* One pass: a value that holds "{m}" is not substituted again. */
	while (*s) {
		const char *add = s;
		size_t n = 1, skip = 1;

		for (size_t i = 0; *s == '{' && i < c->nparams; i++) {
			size_t nl = strlen(c->params[i].name);

			if (strncmp(s + 1, c->params[i].name, nl) == 0 && s[1 + nl] == '}') {
				add = pmc_cli_run_param_value(c, i, combo);
				n = strlen(add);
				skip = nl + 2;
				break;
			}
		}
		if (pmc_grow_to(&out, &cap, len + n + 1, 1) < 0) {
			free(out);
			return NULL;
		}
		memcpy(out + len, add, n);
		len += n;
		s += skip;
	}
	out[len] = '\0';
	return out;
}

int pmc_cli_run_keep(struct run_cli *c, void *p)
{
	if (!p)
		return -ENOMEM;
	if (pmc_grow(&c->allocs, c->nallocs, sizeof(*c->allocs)) < 0) {
		free(p);
		return -ENOMEM;
	}
	c->allocs[c->nallocs++] = p;
	return 0;
}

void pmc_cli_run_params_clear(struct run_cli *c)
{
	for (size_t i = 0; i < c->nparams; i++) {
		for (size_t k = 0; k < c->params[i].nvalues; k++)
			free(c->params[i].values[k]);
		free(c->params[i].values);
	}
	free(c->params);
	for (size_t i = 0; i < c->nallocs; i++)
		free(c->allocs[i]);
	free(c->allocs);
	c->params = NULL;
	c->allocs = NULL;
	c->nparams = c->nallocs = 0;
}
