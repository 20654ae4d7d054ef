/* libFuzzer target: what two of a user's files reach (issue 19: the reporters had no
 * target, and a sample of 1e70 wrote past a table cell). The input is two files, split at
 * the first line "----"; each is loaded as pmcbench compare loads it (any format), both
 * are rendered in every format, compared, and the comparison rendered in every format,
 * with its headline. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/compare.h"
#include "formats/import.h"
#include "pmcbench/compare.h"
#include "pmcbench/report.h"
#include "pmcbench/result.h"
#include "reporters/compare_cells.h"
#include "reporters/reporter.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static struct pmc_result *load(const uint8_t *data, size_t n)
{
	struct pmc_result *res = NULL;
	const char *path = fuzz_file(data, n, ".in");
	char err[512];

	if (!path || pmc_result_load_any(path, &res, err, sizeof(err)) != 0)
		return NULL;
	return res;
}

static void render(FILE *out, const struct pmc_result *a, const struct pmc_result *b)
{
	PMC_OPTS(pmc_report_opts, ro, .confidence = 0.95, .old_name = "old", .new_name = "new");
	struct pmc_comparison *c = NULL;
	char err[512], line[1024];

	const struct pmc_reporter *rep;

	/* Every format of the registry; each entry point refuses what its format does not
	 * render. */
	for (size_t i = 0; (rep = pmc_reporter_at(i)) != NULL; i++) {
		pmc_report_result(out, rep->name, a, &ro, err, sizeof(err));
		pmc_report_result(out, rep->name, b, &ro, err, sizeof(err));
	}
	if (pmc_compare(a, b, NULL, &c, err, sizeof(err)) != 0)
		return;
	for (size_t i = 0; (rep = pmc_reporter_at(i)) != NULL; i++)
		pmc_report_comparison(out, rep->name, c, &ro, err, sizeof(err));
	pmc_cmp_headline(c, &ro, line, sizeof(line));
	pmc_comparison_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const char sep[] = "\n----\n";
	const uint8_t *cut = NULL;
	struct pmc_result *a, *b;
	size_t na = n;
	FILE *out;

	for (size_t i = 0; i + sizeof(sep) - 1 <= n && !cut; i++)
		if (memcmp(data + i, sep, sizeof(sep) - 1) == 0)
			cut = data + i;
	if (cut)
		na = (size_t)(cut - data);
	a = load(data, na);
	b = cut ? load(cut + sizeof(sep) - 1, n - na - (sizeof(sep) - 1)) : NULL;
	out = fopen("/dev/null", "we");
	if (a && out)
		render(out, a, b ? b : a);
	if (out)
		fclose(out);
	pmc_result_free(a);
	pmc_result_free(b);
	return 0;
}
