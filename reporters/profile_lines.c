/* The source-line report of one function (profile_lines.h): the line table's entries of
 * the function merged by source line and inlined function, rendered, never computed
 * anew. */
#include "reporters/profile_lines.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"
#include "reporters/escape.h"
#include "reporters/format.h"

/* One row: the entries of one (file, line, inlined function, call site). Strings are
 * the table's interned copies, so equal strings are equal pointers. */
struct row {
	const struct pmc_profile_line *first;
	uint64_t weight, samples;
	char *label; /* "FILE:LINE", or "[no line table]" */
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if ((c = strcmp(x->label, y->label)) != 0)
		return c;
	return strcmp(x->first->inlined ? x->first->inlined : "",
		      y->first->inlined ? y->first->inlined : "");
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* The key of an entry's row: its source as text (pointers of interned strings). */
static void row_key(const struct pmc_profile_line *l, char *buf, size_t len)
{
	snprintf(buf, len, "%p:%" PRIu32 ":%p:%p:%" PRIu32, (const void *)l->file, l->line,
		 (const void *)l->inlined, (const void *)l->call_file, l->call_line);
}

/* The self weight and samples of fn, and whether it is a function of p. */
static int function_self(const struct pmc_profile *p, const char *fn, uint64_t *ret_self,
			 bool *ret_found)
{
	struct pmc_profile_fn *fns;
	size_t n;
	int rc = pmc_profile_functions(p, &fns, &n);

	if (rc < 0)
		return rc;
	*ret_found = false;
	*ret_self = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(fns[i].name, fn) == 0) {
			*ret_found = true;
			*ret_self = fns[i].self;
		}
	pmc_profile_functions_free(fns, n);
	return 0;
}

/* The rows of fn's entries into *ret (n rows), each with its label. */
static int collect(const struct pmc_profile *p, const char *fn, struct row **ret, size_t *ret_n)
{
	const struct pmc_profile_lines *t = pmc_profile_lines(p);
	size_t n = pmc_profile_lines_count(t), nrows = 0;
	struct pmc_hashmap byrow = {0};
	struct row *rows = calloc(n + 1, sizeof(*rows));
	char **keys = calloc(n + 1, sizeof(*keys));
	char name[512], key[128];
	int rc = -ENOMEM;

	if (!rows || !keys || pmc_hashmap_init(&byrow, 64) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct pmc_profile_line *l = pmc_profile_lines_get(t, i);
		size_t r;
		int put;

		if (strcmp(pmc_profile_frame_name(p, l->frame, name, sizeof(name)), fn) != 0)
			continue;
		row_key(l, key, sizeof(key));
		if (!(keys[nrows] = strdup(key)))
			goto out;
		put = pmc_hashmap_get_or_put(&byrow, keys[nrows], nrows, &r);
		if (put < 0)
			goto out;
		if (put == 1) {
			int len =
			    l->file ? snprintf(NULL, 0, "%s:%" PRIu32, base_name(l->file), l->line)
				    : 0;

			rows[r].first = l;
			rows[r].label =
			    l->file ? malloc((size_t)len + 1) : strdup("[no line table]");
			nrows++;
			if (!rows[r].label)
				goto out;
			if (l->file)
				snprintf(rows[r].label, (size_t)len + 1, "%s:%" PRIu32,
					 base_name(l->file), l->line);
		} else {
			free(keys[nrows]);
			keys[nrows] = NULL;
		}
		/* No overflow: the rows split fn's self weight, which fits. */
		rows[r].weight += l->weight;
		rows[r].samples += l->samples;
	}
	*ret = rows;
	*ret_n = nrows;
	rows = NULL;
	rc = 0;
out:
	if (rows)
		for (size_t i = 0; i < nrows; i++)
			free(rows[i].label);
	free(rows);
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
	pmc_hashmap_free(&byrow);
	return rc;
}

static void put_inlined(FILE *out, const struct pmc_profile_line *l)
{
	if (!l->inlined)
		return;
	pmc_escape_text(out, l->inlined);
	if (l->call_file) {
		fputs(" (inlined at ", out);
		pmc_escape_text(out, base_name(l->call_file));
		fprintf(out, ":%" PRIu32 ")", l->call_line);
	} else {
		fputs(" (inlined)", out);
	}
}

int pmc_profile_report_lines(FILE *out, const struct pmc_profile *p, const char *fn)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);
	struct row *rows = NULL;
	uint64_t self, sum = 0, nsamples = 0;
	char a[PMC_FMT_MAX + 24], b[PMC_FMT_MAX + 24];
	size_t n = 0, width = 4;
	bool found, any_line = false;
	int rc;

	if (!pmc_profile_lines(p))
		return -ENODATA;
	if ((rc = function_self(p, fn, &self, &found)) < 0)
		return rc;
	if (!found)
		return -ENOENT;
	if ((rc = collect(p, fn, &rows, &n)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		any_line = any_line || rows[i].first->file;
		sum += rows[i].weight;
		nsamples += rows[i].samples;
		if (strlen(rows[i].label) > width)
			width = strlen(rows[i].label);
	}
	if (n && !any_line) {
		rc = -ENOEXEC;
		goto out;
	}
	fputs("Source lines of ", out);
	pmc_escape_text(out, fn);
	pmc_fmt_percent(pmc_profile_total(p) ? 100.0 * (double)self / (double)pmc_profile_total(p)
					     : NAN,
			false, a, sizeof(a));
	pmc_fmt_weight(self ? (double)self : NAN, in->unit, false, b, sizeof(b));
	fprintf(out, ": self %s of the profile (%s", a, self ? b : "0");
	fputs(" of ", out);
	pmc_escape_text(out, in->event);
	fputs(")\n", out);
	if (!n) {
		fputs("\nNo samples ended in it (it is only a caller): it has no lines of its "
		      "own.\n",
		      out);
		goto out;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	fprintf(out, "\n%7s %12s %8s  %-*s  %s\n", "share", "weight", "samples", (int)width, "line",
		"inlined function");
	for (size_t i = 0; i < n; i++) {
		pmc_fmt_percent(100.0 * (double)rows[i].weight / (double)sum, false, a, sizeof(a));
		pmc_fmt_weight((double)rows[i].weight, in->unit, false, b, sizeof(b));
		fprintf(out, "%7s %12s %8" PRIu64 "  ", a, rows[i].weight ? b : "0",
			rows[i].samples);
		pmc_escape_text(out, rows[i].label);
		if (rows[i].first->inlined) {
			fprintf(out, "%*s  ", (int)(width - strlen(rows[i].label)), "");
			put_inlined(out, rows[i].first);
		}
		putc('\n', out);
	}
	pmc_fmt_weight(sum ? (double)sum : NAN, in->unit, false, b, sizeof(b));
	fprintf(out, "%7s %12s %8" PRIu64 "  total (%zu line%s)\n", "100%", sum ? b : "0", nsamples,
		n, n == 1 ? "" : "s");
out:
	for (size_t i = 0; i < n; i++)
		free(rows[i].label);
	free(rows);
	return rc < 0 ? rc : (ferror(out) ? -EIO : 0);
}
