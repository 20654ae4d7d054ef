/* The one number/unit formatter of every report. Two styles, both from here: the
 * run table's ("1,234,567", "12.35" with "ms" shown as its own unit) and the short
 * human one of comparisons ("1.235M", "12.3ms", "2MiB"). A value that was not measured
 * (NAN, or not finite) is written "-", never as a number. Units are the metric
 * registry's: "count", "ns", "bytes", "ratio", "percent", or any other text. */
#pragma once

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>

/* Room every pmc_fmt_*_to writer needs. */
#define PMC_FMT_MAX 48

/* |v| rounded to an integer, digits grouped by three as perf prints counts
 * ("-1,234,567"); far beyond any count, scientific notation. */
void pmc_fmt_grouped(double v, char *buf, size_t len);

/* v in the metric's unit for the run table: writes the number and returns the unit to
 * show beside it ("ms", "MiB", "%", "" for counts and ratios, or unit itself). */
const char *pmc_fmt_value(double v, const char *unit, char *buf, size_t len);

/* "± 1.23%" of center, or the spread in the unit when center is 0. */
void pmc_fmt_spread(double spread, double center, const char *unit, char *buf, size_t len);

/* The short human form, unit included: "1.235M", "12.3ms", "2MiB", "1.250", "2.5%",
 * "3 GHz". buf holds PMC_FMT_MAX bytes; returns the length written. */
size_t pmc_fmt_short_to(char *buf, double v, const char *unit);

/* pmc_fmt_short_to() into a buffer of any size; returns buf. */
char *pmc_fmt_short(double v, const char *unit, char *buf, size_t len);

/* A profile's weight in its unit, as every view of a profile shows it: time for "ns"
 * ("419.5ms"), a count with an SI suffix and the unit's name otherwise ("1.201M
 * instructions", "12 samples"; NULL or "count": the number alone). With plus, a sign
 * always ("+0", "-1.2k instructions"). */
void pmc_fmt_weight(double v, const char *unit, bool plus, char *buf, size_t len);

/* Like "%.*f" (with a sign when plus) for 0 <= decimals <= 7, without printf for the
 * usual magnitudes; buf holds PMC_FMT_MAX bytes. Returns the length. */
size_t pmc_fmt_fixed_to(char *buf, double v, int decimals, bool plus);

/* The decimal digits of k; buf holds 24 bytes. Returns the length (no NUL). */
size_t pmc_fmt_uint_to(char *buf, unsigned long long k);

/* Decimals a percentage is shown with: 2 below 10%, 1 below 100%, none above. */
int pmc_fmt_percent_decimals(double pct);

/* "2.50%", "+12.5%", "-150%" (sign: always show it). */
void pmc_fmt_percent(double pct, bool sign, char *buf, size_t len);

/* ---- Machine-readable numbers (CSV, Go's benchmark format) ------------------------ */

/* The shortest decimal that reads back as the same double ("0.1", "1893312",
 * "0.3333333333333333"), so that no digit is lost and none is invented; whole numbers
 * below 2^63 without a decimal point. v must be finite; buf holds PMC_FMT_MAX bytes.
 * Returns the length. errno is left as it was. */
size_t pmc_fmt_exact_to(char *buf, double v);

/* A statistic of measured values (a mean, a ratio, a p-value): rounded to 10 significant
 * digits, whose last digits would only be noise of the arithmetic (1.2, not
 * 1.2000000000000002), then as pmc_fmt_exact_to(). */
size_t pmc_fmt_stat_to(char *buf, double v);

/* snprintf writes the decimal point of LC_NUMERIC: formats read by programs switch this
 * thread to the C locale while they write, whatever locale the program chose. */
struct pmc_fmt_locale {
	locale_t c, old;
};

/* Switches to the C locale's numbers. Returns 0 or -ENOMEM. */
int pmc_fmt_locale_c(struct pmc_fmt_locale *l);
/* Restores the locale pmc_fmt_locale_c() replaced. */
void pmc_fmt_locale_restore(struct pmc_fmt_locale *l);
