/* --export FILE (repeatable) of `run`, the benchmark programs, `compare` and `gate`: the
 * result or the comparison again, in the format the file's extension names
 * (docs/export.md), each file written atomically as the result file is. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/atomic_file.h"
#include "cli/cli.h"
#include "formats/result_json.h"
#include "pmcbench/report.h"
#include "reporters/reporter.h"

int pmc_cli_exports_add(struct pmc_cli_exports *x, const char *path)
{
	const struct pmc_reporter *rep = pmc_reporter_for_path(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');
	char exts[64];

	if (!rep) {
		pmc_reporter_extensions(exts, sizeof(exts));
		if (dot && dot != base)
			pmc_cli_error("--export '%s': unknown extension '%s'; use %s (Go's "
				      "benchmark format)",
				      path, dot, exts);
		else
			pmc_cli_error("--export '%s': no extension to choose the format by; use "
				      "%s (Go's benchmark format)",
				      path, exts);
		return -EINVAL;
	}
	if (pmc_grow(&x->v, x->n, sizeof(*x->v)) < 0) {
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	x->v[x->n++] = (struct pmc_cli_export){.path = path, .format = rep->name};
	return 0;
}

int pmc_cli_exports_check(const struct pmc_cli_exports *x)
{
	for (size_t i = 0; i < x->n; i++)
		if (pmc_cli_check_path("--export", x->v[i].path) < 0)
			return -EINVAL;
	return 0;
}

void pmc_cli_exports_clear(struct pmc_cli_exports *x)
{
	free(x->v);
	x->v = NULL;
	x->n = 0;
}

/* Writes one export through the atomic writer: the target is replaced whole or not at
 * all. One error line on failure. */
static int write_one(const struct pmc_cli_export *e, const struct pmc_result *r,
		     const struct pmc_comparison *c, const struct pmc_cli_comparison_set *set,
		     const struct pmc_report_opts *ro)
{
	struct pmc_atomic_file *af;
	char err[512] = "";
	int rc;

	/* A result's JSON is the result file itself, byte for byte as -o writes it. */
	if (r && strcmp(e->format, "json") == 0)
		rc = pmc_result_save(r, e->path, err, sizeof(err));
	else if ((rc = pmc_atomic_file_open(e->path, &af, err, sizeof(err))) == 0) {
		FILE *f = pmc_atomic_file_stream(af);

		rc = r	   ? pmc_report_result(f, e->format, r, ro, err, sizeof(err))
		     : set ? pmc_report_comparisons(f, e->format, set->cs, set->names, set->n, ro,
						    err, sizeof(err))
			   : pmc_report_comparison(f, e->format, c, ro, err, sizeof(err));
		if (rc < 0)
			pmc_atomic_file_abort(af);
		else
			rc = pmc_atomic_file_commit(af, err, sizeof(err));
	}
	/* The writers' messages name the file; a reporter's says what failed. */
	if (rc < 0 && err[0] && strstr(err, e->path))
		pmc_cli_error("--export: %s", err);
	else if (rc < 0)
		pmc_cli_error("--export '%s': %s", e->path, err[0] ? err : strerror(-rc));
	return rc;
}

int pmc_cli_exports_result(const struct pmc_cli_exports *x, const struct pmc_result *r,
			   const struct pmc_report_opts *ro)
{
	int first = 0;

	for (size_t i = 0; i < x->n; i++) {
		int rc = write_one(&x->v[i], r, NULL, NULL, ro);

		if (rc < 0 && first == 0)
			first = rc;
	}
	return first;
}

int pmc_cli_exports_comparison(const struct pmc_cli_exports *x, const struct pmc_comparison *c,
			       const struct pmc_report_opts *ro)
{
	int first = 0;

	for (size_t i = 0; i < x->n; i++) {
		int rc = write_one(&x->v[i], NULL, c, NULL, ro);

		if (rc < 0 && first == 0)
			first = rc;
	}
	return first;
}

int pmc_cli_exports_comparisons(const struct pmc_cli_exports *x,
				const struct pmc_cli_comparison_set *set,
				const struct pmc_report_opts *ro)
{
	int first = 0;

	for (size_t i = 0; i < x->n; i++) {
		int rc = write_one(&x->v[i], NULL, NULL, set, ro);

		if (rc < 0 && first == 0)
			first = rc;
	}
	return first;
}

bool pmc_cli_format_is_document(const char *format)
{
	return strcmp(format, "json") == 0 || strcmp(format, "csv") == 0 ||
	       strcmp(format, "gobench") == 0;
}
