/* Reports of two profiles (profile_report.h): the diff and the attribution of a metric's
 * change; they render the model's views, never change them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/profile_report.h"
#include "reporters/profile_report_priv.h"

/* A count with its sign, short: "+400.4k", "-12", "0". */
static void fmt_signed_count(double v, char buf[static PMC_FMT_MAX + 1])
{
	buf[0] = v > 0 ? '+' : '-';
	pmc_fmt_short_to(buf + (v != 0), fabs(v), "count");
}

/* An amount with its sign, short, in the unit of a table's cells. */
static void fmt_signed(double v, const char *unit, char buf[static PMC_FMT_MAX + 1])
{
	if (v == 0) {
		strcpy(buf, "0"); /* no change is no time: "0", not "0ns" */
		return;
	}
	buf[0] = v > 0 ? '+' : '-';
	pmc_fmt_short_to(buf + (v != 0), fabs(v), unit);
}

/* The rows of an exact diff: the first changed of d's n (sorted by |change|, the
 * unchanged last), top of them at most (0: all), then how many more changed and how many
 * did not. waits: off-CPU profiles, each function's total time off CPU; else counts, its
 * self count. */
static void exact_rows(FILE *out, const struct pmc_profile_delta *d, size_t n, size_t changed,
		       size_t top, bool waits)
{
	size_t show = top && top < changed ? top : changed;
	const char *u = waits ? "ns" : "count";

	fprintf(out, "\n%10s %10s %10s  %s\n", "old", "new", "change", "function");
	for (size_t i = 0; i < show; i++) {
		char a[PMC_FMT_MAX + 24], b[PMC_FMT_MAX + 24], c[PMC_FMT_MAX + 1];
		uint64_t o = waits ? d[i].old_total : d[i].old_self;
		uint64_t v = waits ? d[i].new_total : d[i].new_self;

		pmc_fmt_short((double)o, u, a, sizeof(a));
		pmc_fmt_short((double)v, u, b, sizeof(b));
		if (waits)
			fmt_signed(d[i].change, u, c);
		else
			fmt_signed_count((double)v - (double)o, c);
		fprintf(out, "%10s %10s %10s  ", o ? a : "-", v ? b : "-", c);
		pmc_escape_text(out, d[i].name);
		putc('\n', out);
	}
	if (show < changed)
		fprintf(out, "(%zu more functions changed)\n", changed - show);
	if (n > changed)
		fprintf(out, "(%zu function%s unchanged)\n", n - changed,
			n - changed == 1 ? "" : "s");
}

/* The diff of two exact profiles of one event: self counts, by their change. */
static void diff_counts(FILE *out, const struct pmc_profile_delta *d, size_t n, size_t top)
{
	size_t changed = 0;

	while (changed < n && d[changed].old_self != d[changed].new_self)
		changed++; /* sorted by |change|: the unchanged ones come last */
	exact_rows(out, d, n, changed, top, false);
	fputs("change: new minus old self count (exact); -: no self weight in that profile\n", out);
}

/* Samples lost on either side move its weights. */
static void lost_warning(FILE *out, const struct pmc_profile_info *oi,
			 const struct pmc_profile_info *ni)
{
	char o[32], nw[32];

	if (!oi->lost && !ni->lost)
		return;
	snprintf(o, sizeof(o), "%" PRIu64, oi->lost);
	snprintf(nw, sizeof(nw), "%" PRIu64, ni->lost);
	fprintf(out, "WARNING: samples lost: %s old, %s new\n", oi->lost_unknown ? "not known" : o,
		ni->lost_unknown ? "not known" : nw);
}

/* The diff of two sampled profiles of one event whose weights are an amount (time):
 * self amounts by their change, each with its interval, the changes within sampling
 * error after the others and marked "~". */
static void diff_amounts(FILE *out, const struct pmc_profile_delta *d, size_t n, size_t top,
			 const char *unit)
{
	const char *u = strcmp(unit, "ns") == 0 ? "ns" : "count";
	size_t selfish = 0, show, noise = 0;
	int iw = 8;

	/* A function with no self weight on either side (only ever a caller) has no row. */
	for (size_t i = 0; i < n; i++)
		if (d[i].old_self || d[i].new_self)
			selfish++;
	show = top && top < selfish ? top : selfish;
	for (size_t i = 0, shown = 0; i < n && shown < show; i++) {
		char lo[PMC_FMT_MAX + 1], hi[PMC_FMT_MAX + 1];
		int w;

		if (!d[i].old_self && !d[i].new_self)
			continue;
		fmt_signed(d[i].lo, u, lo);
		fmt_signed(d[i].hi, u, hi);
		w = (int)(strlen(lo) + strlen(hi) + 4);
		if (w > iw)
			iw = w;
		shown++;
	}
	fprintf(out, "\n%10s %10s %10s  %-*s  %s\n", "old", "new", "change", iw + 2, "interval",
		"function");
	for (size_t i = 0, shown = 0; i < n && shown < show; i++) {
		char a[PMC_FMT_MAX + 1], b[PMC_FMT_MAX + 1], c[PMC_FMT_MAX + 1];
		char lo[PMC_FMT_MAX + 1], hi[PMC_FMT_MAX + 1], iv[2 * PMC_FMT_MAX + 8];

		if (!d[i].old_self && !d[i].new_self)
			continue;
		pmc_fmt_short((double)d[i].old_self, u, a, sizeof(a));
		pmc_fmt_short((double)d[i].new_self, u, b, sizeof(b));
		fmt_signed(d[i].change, u, c);
		fmt_signed(d[i].lo, u, lo);
		fmt_signed(d[i].hi, u, hi);
		snprintf(iv, sizeof(iv), "[%s, %s]", lo, hi);
		fprintf(out, "%10s %10s %10s  %-*s %s  ", d[i].old_self ? a : "-",
			d[i].new_self ? b : "-", c, iw, iv, d[i].clear ? " " : "~");
		pmc_escape_text(out, d[i].name);
		putc('\n', out);
		shown++;
	}
	for (size_t i = 0; i < n; i++)
		if ((d[i].old_self || d[i].new_self) && !d[i].clear)
			noise++;
	if (show < selfish)
		fprintf(out, "(%zu more functions, %zu of all within sampling error)\n",
			selfish - show, noise);
	fprintf(out,
		"change: new minus old self %s, with its 95%% interval from the samples (Poisson "
		"counts); ~: within sampling error (the interval holds 0), unchanged; -: no self "
		"weight in that profile\n",
		strcmp(unit, "ns") == 0 ? "time" : "weight");
}

/* The diff of two off-CPU profiles: each function's time off CPU (its total), by its
 * change, exact; the functions whose time did not change counted in one line. */
static void diff_waits(FILE *out, const struct pmc_profile_delta *d, size_t n, size_t top)
{
	size_t changed = 0;

	while (changed < n && d[changed].clear)
		changed++; /* sorted by |change|: the unchanged ones come last */
	exact_rows(out, d, n, changed, top, true);
	fputs("change: new minus old time off CPU of the stacks through the function (with "
	      "what it calls: the self time of a wait is the kernel's schedule), measured wait "
	      "by wait, not sampled: no sampling error, though two runs differ by their own "
	      "noise; -: not on a stack of that profile\n",
	      out);
}

int pmc_profile_report_diff(FILE *out, const struct pmc_profile *old_p,
			    const struct pmc_profile *new_p, size_t top)
{
	const struct pmc_profile_info *oi = pmc_profile_info(old_p), *ni = pmc_profile_info(new_p);
	struct pmc_profile_delta *d = NULL;
	size_t n = 0, show, selfish = 0;
	int rc;

	rc = pmc_profile_diff(old_p, new_p, &d, &n);
	if (rc < 0)
		return rc;
	fputs("Profile diff: ", out);
	pmc_escape_text(out, oi->event);
	switch (pmc_profile_diff_mode(old_p, new_p)) {
	case PMC_PROFILE_DIFF_COUNTS:
		/* Counts of the same thing: a function whose count did not change did not
		 * change, though its share moves with every other function's. */
		fputs(" (", out);
		pmc_escape_text(out, ni->unit);
		fputs("), exact: functions by the change of their self count\n", out);
		diff_counts(out, d, n, top);
		goto out;
	case PMC_PROFILE_DIFF_AMOUNTS:
		/* Amounts of one thing, as counts are, but estimated from samples. */
		fputs(" (", out);
		pmc_escape_text(out, ni->unit);
		fprintf(out,
			"), sampled: functions by the change of their self %s, those within "
			"sampling error last\n",
			strcmp(ni->unit, "ns") == 0 ? "time" : "weight");
		lost_warning(out, oi, ni);
		diff_amounts(out, d, n, top, ni->unit);
		goto out;
	case PMC_PROFILE_DIFF_WAITS:
		fputs(" (ns), measured: functions by the change of their time off CPU (total, "
		      "with what they call)\n",
		      out);
		lost_warning(out, oi, ni);
		diff_waits(out, d, n, top);
		goto out;
	case PMC_PROFILE_DIFF_SHARES:
		break;
	}
	if (strcmp(oi->event, ni->event) != 0) {
		fputs(" -> ", out);
		pmc_escape_text(out, ni->event);
		fputs(" (different events: shares are not comparable)", out);
	}
	fputs(", functions by the change of their share of self weight\n", out);
	lost_warning(out, oi, ni);
	/* A function with no self weight on either side (only ever a caller) has no row:
	 * its share did not change. */
	for (size_t i = 0; i < n; i++)
		if (d[i].old_self || d[i].new_self)
			selfish++;
	show = top && top < selfish ? top : selfish;
	fprintf(out, "\n%7s %7s %9s  %s\n", "old%", "new%", "delta", "function");
	for (size_t i = 0, shown = 0; i < n && shown < show; i++) {
		char a[PMC_FMT_MAX], b[PMC_FMT_MAX];

		if (!d[i].old_self && !d[i].new_self)
			continue;
		pmc_fmt_percent(100 * d[i].old_share, false, a, sizeof(a));
		pmc_fmt_percent(100 * d[i].new_share, false, b, sizeof(b));
		fprintf(out, "%7s %7s %+9.2f  ", d[i].old_self ? a : "-", d[i].new_self ? b : "-",
			100 * d[i].delta);
		pmc_escape_text(out, d[i].name);
		putc('\n', out);
		shown++;
	}
	if (show < selfish)
		fprintf(out, "(%zu more functions)\n", selfish - show);
	fputs(
	    "delta: percentage points of the profile's total; -: no self weight in that profile\n",
	    out);
out:
	pmc_profile_deltas_free(d, n);
	return finish(out);
}

/* After an attribution: how much of each side's weight is in cut call chains, when any
 * is. The parts use self weights, which a cut chain leaves whole. */
static void cut_note(FILE *out, const struct pmc_profile *old_p, const struct pmc_profile *new_p,
		     bool markdown)
{
	uint64_t oc = pmc_profile_truncated(old_p), nc = pmc_profile_truncated(new_p);
	char a[PMC_FMT_MAX], b[PMC_FMT_MAX];

	if (!oc && !nc)
		return;
	pmc_fmt_percent(pct(oc, pmc_profile_total(old_p)), false, a, sizeof(a));
	pmc_fmt_percent(pct(nc, pmc_profile_total(new_p)), false, b, sizeof(b));
	fprintf(out,
		"%scut call chains: %s of the old profile's weight, %s of the new one's (the "
		"parts use self weights, which are whole; callers are missing)\n",
		markdown ? "\n" : "  ", a, b);
}

/* The named parts first: by |part|, largest first, then name. */
static int named_cmp(const void *a, const void *b)
{
	const struct pmc_profile_delta *x = *(const struct pmc_profile_delta *const *)a;
	const struct pmc_profile_delta *y = *(const struct pmc_profile_delta *const *)b;
	double ax = fabs(x->delta), ay = fabs(y->delta);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* "prof_cold" as the text or Markdown of the attribution. */
static void put_fn(FILE *out, const char *name, bool markdown)
{
	if (markdown)
		pmc_escape_md_code(out, name);
	else
		pmc_escape_text(out, name);
}

int pmc_profile_report_attribution_of(FILE *out, const struct pmc_profile *old_p,
				      const struct pmc_profile *new_p, const char *metric,
				      const char *unit, double old_value, double new_value,
				      const char *change, size_t top, bool markdown)
{
	const struct pmc_profile_info *ni;
	struct pmc_profile_delta *d = NULL;
	const struct pmc_profile_delta **named = NULL;
	char ch[PMC_FMT_MAX], ov[PMC_FMT_MAX + 24], nv[PMC_FMT_MAX + 24], part[PMC_FMT_MAX];
	char a[PMC_FMT_MAX], b[PMC_FMT_MAX];
	enum pmc_profile_fit fit, f2;
	size_t n = 0, nnamed = 0, show;
	double rest = 1;
	bool sampled;
	int rc;

	if (!metric || !old_p || !new_p)
		return -EINVAL;
	ni = pmc_profile_info(new_p);
	/* A metric's change divides by a profile of that metric only: the shares of where
	 * the time went say nothing of where memory or page faults went. */
	fit = pmc_profile_fits_metric(old_p, metric);
	f2 = pmc_profile_fits_metric(new_p, metric);
	if (f2 < fit)
		fit = f2;
	if (fit != PMC_PROFILE_FIT_NONE) {
		rc = pmc_profile_attribute(old_p, new_p, old_value, new_value, &d, &n);
		if (rc < 0)
			return rc;
	} else if (!isfinite(old_value) || !isfinite(new_value)) {
		return -EINVAL;
	} else if (old_value == new_value) {
		return -EDOM;
	}
	sampled = fit == PMC_PROFILE_FIT_SAMPLED;
	rc = -ENOMEM;
	named = calloc(n + 1, sizeof(*named));
	if (!named)
		goto out;
	/* Exact parts are all findings, but those that print as 0.00% are left to the rest;
	 * sampled ones need samples and an interval clear of 0. */
	for (size_t i = 0; i < n; i++)
		if (d[i].clear && fabs(d[i].delta) >= 0.00005)
			named[nnamed++] = &d[i];
	qsort(named, nnamed, sizeof(*named), named_cmp);
	show = top ? top : 5;
	if (show > nnamed)
		show = nnamed;
	for (size_t i = 0; i < show; i++)
		rest -= named[i]->delta;

	if (change)
		snprintf(ch, sizeof(ch), "%s", change);
	else if (old_value != 0)
		pmc_fmt_percent(100 * (new_value - old_value) / fabs(old_value), true, ch,
				sizeof(ch));
	else
		snprintf(ch, sizeof(ch), "%s", new_value > 0 ? "up" : "down");
	pmc_fmt_short(old_value, unit ? unit : "count", ov, sizeof(ov));
	pmc_fmt_short(new_value, unit ? unit : "count", nv, sizeof(nv));
	if (markdown) {
		fputs("**", out);
		pmc_escape_md(out, metric);
		fprintf(out, " %s** (medians %s → %s)", ch, ov, nv);
	} else {
		pmc_escape_text(out, metric);
		fprintf(out, " %s (medians %s -> %s):", ch, ov, nv);
	}

	if (fit == PMC_PROFILE_FIT_NONE) {
		fputs(markdown ? ": no profile of " : " no profile of ", out);
		put_fn(out, metric, markdown);
		fputs(" (the profiles are of ", out);
		put_fn(out, ni->event, markdown);
		/* Waits are part of a wall time, which no share of them divides: the session
		 * shows how they changed (docs/profile.md, "Profiles in the gate"). */
		fputs(pmc_profile_diff_mode(old_p, new_p) == PMC_PROFILE_DIFF_WAITS
			  ? ": where the commands waited, part of their wall time), so pmcbench "
			    "cannot divide it by function\n"
			  : "), so pmcbench cannot say where\n",
		      out);
		rc = finish(out);
		goto out;
	}
	if (!nnamed) {
		pmc_fmt_grouped((double)pmc_profile_samples(old_p), a, sizeof(a));
		pmc_fmt_grouped((double)pmc_profile_samples(new_p), b, sizeof(b));
		if (markdown)
			putc(':', out);
		if (sampled)
			fprintf(
			    out,
			    " the %s profiles have too few samples to say where (%s old, %s new: "
			    "no function's part is clear of sampling noise); profile a longer "
			    "run\n",
			    ni->event, a, b);
		else
			fprintf(out, " spread over %zu functions, none with 0.01%% of it\n", n);
		cut_note(out, old_p, new_p, markdown);
		rc = finish(out);
		goto out;
	}
	if (markdown) {
		fputs(", by function:\n\n", out);
		fputs(sampled ? "| function | part of the change | 95% interval | self samples | "
				"old share | new share |\n|---|---:|---:|---:|---:|---:|\n"
			      : "| function | part of the change | old share | new share |\n"
				"|---|---:|---:|---:|\n",
		      out);
		for (size_t i = 0; i < show; i++) {
			const struct pmc_profile_delta *x = named[i];
			char lo[PMC_FMT_MAX], hi[PMC_FMT_MAX];

			pmc_fmt_percent(100 * x->delta, false, part, sizeof(part));
			pmc_fmt_percent(100 * x->old_share, false, a, sizeof(a));
			pmc_fmt_percent(100 * x->new_share, false, b, sizeof(b));
			fputs("| ", out);
			put_fn(out, x->name, true);
			fprintf(out, " | %s | ", part);
			if (sampled) {
				pmc_fmt_percent(100 * x->lo, false, lo, sizeof(lo));
				pmc_fmt_percent(100 * x->hi, false, hi, sizeof(hi));
				fprintf(out, "[%s, %s] | %" PRIu64 " → %" PRIu64 " | ", lo, hi,
					x->old_samples, x->new_samples);
			}
			fprintf(out, "%s | %s |\n", x->old_self ? a : "-", x->new_self ? b : "-");
		}
		if (n > show && fabs(rest) >= 0.00005) {
			pmc_fmt_percent(100 * rest, false, part, sizeof(part));
			fprintf(out, "| %zu other functions | %s |%s | |\n", n - show, part,
				sampled ? " | |" : "");
		}
	} else {
		for (size_t i = 0; i < show; i++) {
			const struct pmc_profile_delta *x = named[i];

			pmc_fmt_percent(100 * x->delta, false, part, sizeof(part));
			fprintf(out, "%s %s", i ? "," : "", part);
			if (sampled) {
				pmc_fmt_percent(100 * x->lo, false, a, sizeof(a));
				pmc_fmt_percent(100 * x->hi, false, b, sizeof(b));
				fprintf(out, " [%s, %s]", a, b);
			}
			fputs(" in ", out);
			put_fn(out, x->name, false);
		}
		if (n > show && fabs(rest) >= 0.00005) {
			pmc_fmt_percent(100 * rest, false, part, sizeof(part));
			fprintf(out, ", %s elsewhere", part);
		}
		putc('\n', out);
	}
	if (sampled) {
		pmc_fmt_grouped((double)pmc_profile_samples(old_p), a, sizeof(a));
		pmc_fmt_grouped((double)pmc_profile_samples(new_p), b, sizeof(b));
		fprintf(out,
			"%sestimated from %s samples (%s old, %s new), 95%% intervals; a function "
			"needs %d samples and an interval clear of 0 to be named\n",
			markdown ? "\n" : "  ", ni->event, a, b, PMC_PROFILE_ATTRIBUTE_MIN_SAMPLES);
	}
	cut_note(out, old_p, new_p, markdown);
	rc = finish(out);
out:
	free(named);
	pmc_profile_deltas_free(d, n);
	return rc;
}
