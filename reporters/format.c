/* The one number/unit formatter (format.h). The run table's style comes from perf
 * stat; the short style, from benchstat. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "reporters/format.h"

/* ---- The run table's style ------------------------------------------------------- */

void pmc_fmt_grouped(double v, char *buf, size_t len)
{
	char digits[400];
	size_t n, o = 0;
	int k = snprintf(digits, sizeof(digits), "%.0f", fabs(v));

	if (k < 0 || (size_t)k >= sizeof(digits) || k > 30) {
		/* Far beyond any count: scientific notation rather than 40 digits. */
		snprintf(buf, len, "%.3e", v);
		return;
	}
	n = (size_t)k;
	if (v < 0 && strcmp(digits, "0") != 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* Counts: whole numbers grouped; a mean below 1000 keeps two decimals (0.30 context
 * switches per run says more than 0) unless they would read .00 (a mean of 103 computed
 * as 103.00000000000001). */
static void fmt_count(double v, char *buf, size_t len)
{
	if (fabs(v - round(v)) < 0.005 || fabs(v) >= 1000)
		pmc_fmt_grouped(v, buf, len);
	else
		snprintf(buf, len, "%.2f", v);
}

/* What a scale's text is for: its suffix ("MiB"), a throughput ("M items/s") or a count per
 * second ("M/s"). */
enum scale_text { TEXT_SUFFIX, TEXT_RATE, TEXT_PER_S };

static const char *text_of(const struct pmc_scale *s, enum scale_text which)
{
	return which == TEXT_RATE ? s->rate : which == TEXT_PER_S ? s->per_s : s->suffix;
}

/* v in the largest scale of base (core/units.h) that keeps it at or above 1 ("1.23 ms",
 * "3.45 MiB"), with the text `which` of that scale ("1.50 k items/s", "229.20 M/s"). The
 * threshold is a hair below the step so that 999.996 becomes 1.00 of the next unit rather
 * than 1000.00 of this one. */
static const char *scaled_unit(double v, enum pmc_unit_base base, enum scale_text which, char *buf,
			       size_t len)
{
	size_t n, i = 0;
	const struct pmc_scale *s = pmc_scales_shown(base, &n);

	while (i + 1 < n && text_of(&s[i + 1], which) &&
	       fabs(v) >= s[i + 1].factor / s[i].factor - 0.005) {
		v /= s[i + 1].factor / s[i].factor;
		i++;
	}
	snprintf(buf, len, i == 0 && v == floor(v) ? "%.0f" : "%.2f", v);
	return text_of(&s[i], which);
}

/* A user counter's units (docs/microbench.md, "User counters"): a count in 1000-based or
 * 1024-based steps, or a count per second. The base of unit, and whether it is a rate;
 * false when unit is none of them. */
static bool count_unit(const char *unit, enum pmc_unit_base *base, bool *per_s)
{
	static const struct {
		const char *unit;
		enum pmc_unit_base base;
		bool per_s;
	} units[] = {
	    {"count/s", PMC_UNIT_COUNT, true},
	    {"count:1024", PMC_UNIT_COUNT_1024, false},
	    {"count:1024/s", PMC_UNIT_COUNT_1024, true},
	};

	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i].unit) == 0) {
			*base = units[i].base;
			*per_s = units[i].per_s;
			return true;
		}
	return false;
}

const char *pmc_fmt_value(double v, const char *unit, char *buf, size_t len)
{
	enum pmc_unit_base base;
	bool per_s;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return "";
	}
	if (!unit || strcmp(unit, "count") == 0) {
		fmt_count(v, buf, len);
		return "";
	}
	if (strcmp(unit, "ns") == 0)
		return scaled_unit(v, PMC_UNIT_NS, TEXT_SUFFIX, buf, len);
	if (strcmp(unit, "bytes") == 0)
		return scaled_unit(v, PMC_UNIT_BYTES, TEXT_SUFFIX, buf, len);
	/* Throughput of the microbenchmarks (docs/microbench.md): SI steps for items, binary
	 * ones for bytes, as sizes are shown; a user counter's in the steps it asked for. */
	if (strcmp(unit, "items/s") == 0)
		return scaled_unit(v, PMC_UNIT_COUNT, TEXT_RATE, buf, len);
	if (strcmp(unit, "bytes/s") == 0)
		return scaled_unit(v, PMC_UNIT_BYTES, TEXT_RATE, buf, len);
	if (count_unit(unit, &base, &per_s) && (v == 0 || fabs(v) >= 0.995))
		return scaled_unit(v, base, per_s ? TEXT_PER_S : TEXT_SUFFIX, buf, len);
	snprintf(buf, len, "%.2f", v);
	if (strcmp(unit, "percent") == 0)
		return "%";
	if (strcmp(unit, "ratio") == 0)
		return "";
	/* A unit from elsewhere (sysfs's "Joules" of a RAPL event): a small value keeps three
	 * significant digits rather than reading 0.00, which was never measured. */
	if (v != 0 && fabs(v) < 0.995)
		snprintf(buf, len, "%.3g", v);
	/* A user counter's inverse (0.004 operations per hit) is such a small value too. */
	if (count_unit(unit, &base, &per_s))
		return per_s ? "/s" : "";
	return unit;
}

void pmc_fmt_spread(double spread, double center, const char *unit, char *buf, size_t len)
{
	char v[48];
	const char *u;

	if (spread == 0) {
		snprintf(buf, len, "± 0.00%%");
	} else if (center != 0 && isfinite(spread / fabs(center))) {
		snprintf(buf, len, "± %.2f%%", spread / fabs(center) * 100);
	} else {
		u = pmc_fmt_value(spread, unit, v, sizeof(v));
		snprintf(buf, len, "± %s%s%s", v, *u ? " " : "", u);
	}
}

/* ---- The short style ------------------------------------------------------------ */

/* A value scaled for display: the number, its suffix and how to print it. */
struct scaled {
	double v;
	const char *suffix;
	enum { SV_G4, SV_F3, SV_PERCENT, SV_UNIT, SV_PER_S } how;
};

/* The short form is printed several times on each of up to 100,000 comparison rows:
 * fixed and %.4g-style output without printf for the usual magnitudes (printf is kept
 * for the rest) makes the comparison table several times faster. */

size_t pmc_fmt_uint_to(char *buf, unsigned long long k)
{
	char d[24], *e = d + sizeof(d), *q = e;

	do
		*--q = (char)('0' + k % 10);
	while ((k /= 10) != 0);
	memcpy(buf, q, (size_t)(e - q));
	return (size_t)(e - q);
}

/* What snprintf(buf, 48, ...) wrote: its return is what it would have written, which is
 * never a length to index with. */
static size_t clamp_len(int w)
{
	return w < 0 ? 0 : w > 47 ? 47 : (size_t)w;
}

size_t pmc_fmt_fixed_to(char *buf, double v, int d, bool plus)
{
	static const double p10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7};
	double a = fabs(v) * p10[d];
	unsigned long long m, ip;
	size_t n = 0;

	if (!isfinite(v)) {
		memcpy(buf, "-", 2);
		return 1;
	}
	/* 1e15 and beyond in fixed notation runs to 310 digits, more than any caller's
	 * buffer holds: in exponent notation, at most 11 characters (issue 19: a result with
	 * samples of 1e70 wrote past the table's cells). */
	if (!(a < 1e15))
		return clamp_len(snprintf(buf, 48, plus ? "%+.3e" : "%.3e", v));
	/* printf rounds the exact binary value; near a tie the product a may have rounded
	 * across it, so ties go to printf (below 1e15, at most 25 characters). */
	if (fabs(a - floor(a) - 0.5) < 1e-6)
		return clamp_len(snprintf(buf, 48, plus ? "%+.*f" : "%.*f", d, v));
	m = (unsigned long long)llround(a);
	if (signbit(v))
		buf[n++] = '-';
	else if (plus)
		buf[n++] = '+';
	ip = m;
	for (int i = 0; i < d; i++)
		ip /= 10;
	n += pmc_fmt_uint_to(buf + n, ip);
	if (d) {
		buf[n++] = '.';
		for (int i = d - 1; i >= 0; i--) {
			buf[n + (size_t)i] = (char)('0' + m % 10);
			m /= 10;
		}
		n += (size_t)d;
	}
	buf[n] = '\0';
	return n;
}

/* Like "%.4g" for 1e-4 <= |v| < 9999.5, which is what scale_value() leaves; printf for
 * the rest. buf holds at least 48 bytes. */
static size_t put_g4(char *buf, double v)
{
	double a = fabs(v);
	int e, d;
	size_t n;

	if (!isfinite(v)) {
		memcpy(buf, "-", 2);
		return 1;
	}
	if (!(a >= 1e-4 && a < 9999.5))
		return (size_t)snprintf(buf, 48, "%.4g", v);
	e = a >= 1000	 ? 3
	    : a >= 100	 ? 2
	    : a >= 10	 ? 1
	    : a >= 1	 ? 0
	    : a >= 0.1	 ? -1
	    : a >= 0.01	 ? -2
	    : a >= 0.001 ? -3
			 : -4;
	d = 3 - e;
	/* 999.96 rounds to 1000 at 4 digits: one decimal fewer. */
	if (a * pow(10, d) >= 9999.5 - 1e-6) {
		if (a * pow(10, d) < 9999.5 + 1e-6)
			return (size_t)snprintf(buf, 48, "%.4g", v);
		d--;
	}
	n = pmc_fmt_fixed_to(buf, v, d, false);
	if (d > 0) {
		while (buf[n - 1] == '0')
			n--;
		if (buf[n - 1] == '.')
			n--;
		buf[n] = '\0';
	}
	return n;
}

/* Prints sv into buf (at least 48 bytes); returns the length. */
static size_t sv_print(char *buf, const struct scaled *sv)
{
	size_t n;

	switch (sv->how) {
	case SV_F3:
		return pmc_fmt_fixed_to(buf, sv->v, 3, false);
	case SV_PERCENT:
		return (size_t)snprintf(buf, 48, "%.3g%%", sv->v);
	case SV_UNIT:
		n = put_g4(buf, sv->v);
		return n + (size_t)snprintf(buf + n, 48 - n, " %.16s", sv->suffix);
	case SV_PER_S:
		n = put_g4(buf, sv->v);
		return n + (size_t)snprintf(buf + n, 48 - n, "%s/s", sv->suffix);
	default:
		n = put_g4(buf, sv->v);
		memcpy(buf + n, sv->suffix, strlen(sv->suffix) + 1);
		return n + strlen(sv->suffix);
	}
}

/* The suffix of the largest scale of base (core/units.h) for *v, which it scales. */
static const char *si_prefix(double *v, enum pmc_unit_base base)
{
	size_t n, i = 0;
	const struct pmc_scale *s = pmc_scales_shown(base, &n);

	/* 0.9995 of a step would print as "1000" at 4 digits: show it as 1 of the next. */
	while (i + 1 < n && fabs(*v) >= s[i + 1].factor / s[i].factor * 0.9995) {
		*v /= s[i + 1].factor / s[i].factor;
		i++;
	}
	return s[i].suffix;
}

static struct scaled scale_value(double v, const char *unit)
{
	struct scaled r = {.v = v, .suffix = "", .how = SV_G4};

	enum pmc_unit_base base;
	bool per_s;

	if (!unit || strcmp(unit, "count") == 0) {
		r.suffix = si_prefix(&r.v, PMC_UNIT_COUNT);
	} else if (count_unit(unit, &base, &per_s)) {
		r.suffix = si_prefix(&r.v, base);
		r.how = per_s ? SV_PER_S : SV_G4;
	} else if (strcmp(unit, "ns") == 0) {
		r.suffix = si_prefix(&r.v, PMC_UNIT_NS);
	} else if (strcmp(unit, "bytes") == 0) {
		r.suffix = si_prefix(&r.v, PMC_UNIT_BYTES);
	} else if (strcmp(unit, "ratio") == 0) {
		r.how = SV_F3;
	} else if (strcmp(unit, "percent") == 0) {
		r.how = SV_PERCENT;
	} else {
		r.how = SV_UNIT;
		r.suffix = unit;
	}
	return r;
}

size_t pmc_fmt_short_to(char *buf, double v, const char *unit)
{
	struct scaled sv;

	if (!isfinite(v)) {
		memcpy(buf, "-", 2);
		return 1;
	}
	sv = scale_value(v, unit);
	return sv_print(buf, &sv);
}

char *pmc_fmt_short(double v, const char *unit, char *buf, size_t len)
{
	char tmp[PMC_FMT_MAX + 24];
	size_t n = pmc_fmt_short_to(tmp, v, unit);

	/* Cut to len as snprintf would (not through it: gcc warns of the cut it means). */
	if (len) {
		n = n < len - 1 ? n : len - 1;
		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
	return buf;
}

void pmc_fmt_weight(double v, const char *unit, bool plus, char *buf, size_t len)
{
	bool time = unit && strcmp(unit, "ns") == 0;
	const char *sign = !plus || !isfinite(v) ? "" : v < 0 ? "-" : "+";
	char n[PMC_FMT_MAX + 24];

	if (*sign)
		v = fabs(v);
	pmc_fmt_short_to(n, v, time ? "ns" : "count");
	if (snprintf(buf, len, "%s%s%s%s", sign, n,
		     time || !unit || !strcmp(unit, "count") ? "" : " ",
		     time || !unit || !strcmp(unit, "count") ? "" : unit) >= (int)len &&
	    len > 0)
		buf[len - 1] = '\0'; /* a unit longer than the room: cut, as snprintf does */
}

/* ---- Percentages ------------------------------------------------------------------ */

int pmc_fmt_percent_decimals(double pct)
{
	double a = fabs(pct);

	return a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
}

void pmc_fmt_percent(double pct, bool sign, char *buf, size_t len)
{
	/* Past 1e15 fixed notation would be cut off by len: a different number. */
	if (fabs(pct) >= 1e15)
		snprintf(buf, len, sign ? "%+.3e%%" : "%.3e%%", pct);
	else
		snprintf(buf, len, sign ? "%+.*f%%" : "%.*f%%", pmc_fmt_percent_decimals(pct), pct);
}

/* ---- Machine-readable numbers ----------------------------------------------------- */

size_t pmc_fmt_exact_to(char *buf, double v)
{
	int saved = errno; /* strtod's ERANGE must not hide why a later write failed */
	int n = 0;

	if (v == floor(v) && fabs(v) < 9.2e18)
		return (size_t)snprintf(buf, PMC_FMT_MAX, "%.0f", v);
	/* 17 significant digits always read back (IEEE 754 binary64); fewer often do. */
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, PMC_FMT_MAX, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	errno = saved;
	return (size_t)n;
}

size_t pmc_fmt_stat_to(char *buf, double v)
{
	int saved = errno;
	char tmp[PMC_FMT_MAX];

	if (v != trunc(v) && isfinite(v)) {
		snprintf(tmp, sizeof(tmp), "%.10g", v);
		v = strtod(tmp, NULL);
		errno = saved;
	}
	return pmc_fmt_exact_to(buf, v);
}

int pmc_fmt_locale_c(struct pmc_fmt_locale *l)
{
	l->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!l->c)
		return -ENOMEM;
	l->old = uselocale(l->c);
	return 0;
}

void pmc_fmt_locale_restore(struct pmc_fmt_locale *l)
{
	if (!l->c)
		return;
	uselocale(l->old);
	freelocale(l->c);
	l->c = (locale_t)0;
}
