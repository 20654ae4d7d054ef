/* --export FILE (repeatable) of `run`, the benchmark programs, `compare` and `gate`: the
 * result or the comparison again, in the format the file's extension names
 * (docs/export.md), each file written atomically as the result file is. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/grow.h"
#include "formats/result_json.h"
#include "pmcbench/report.h"
#include "reporters/reporter.h"
#include "session/session.h"

int pmc_session_exports_add(struct pmc_session_exports *x, const char *path,
			    const struct pmc_session_printer *pr)
{
	const struct pmc_reporter *rep = pmc_reporter_for_path(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');
	char exts[128];

	if (!rep) {
		pmc_reporter_extensions(exts, sizeof(exts));
		if (dot && dot != base)
			pmc_session_say(pr, PMC_SESSION_ERROR,
					"--export '%s': unknown extension '%s'; use %s", path, dot,
					exts);
		else
			pmc_session_say(pr, PMC_SESSION_ERROR,
					"--export '%s': no extension to choose the format by; use "
					"%s",
					path, exts);
		return -EINVAL;
	}
	return pmc_session_exports_add_as(x, path, rep->name, pr);
}

int pmc_session_exports_add_as(struct pmc_session_exports *x, const char *path, const char *format,
			       const struct pmc_session_printer *pr)
{
	if (pmc_grow(&x->v, x->n, sizeof(*x->v)) < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		return -ENOMEM;
	}
	x->v[x->n++] = (struct pmc_session_export){.path = path, .format = format};
	return 0;
}

int pmc_session_exports_check(const struct pmc_session_exports *x,
			      const struct pmc_session_printer *pr)
{
	for (size_t i = 0; x && i < x->n; i++)
		if (pmc_session_check_path(pr, "--export", x->v[i].path) < 0)
			return -EINVAL;
	return 0;
}

void pmc_session_exports_clear(struct pmc_session_exports *x)
{
	free(x->v);
	x->v = NULL;
	x->n = 0;
}

/* Writes one export through the atomic writer: the target is replaced whole or not at
 * all. One error message on failure. */
static int write_one(const struct pmc_session_export *e, const struct pmc_result *r,
		     const struct pmc_analysis *a, const struct pmc_comparison *c,
		     const struct pmc_session_comparison_set *set, const struct pmc_report_opts *ro,
		     const struct pmc_session_printer *pr)
{
	struct pmc_atomic_file *af;
	char err[512] = "";
	int rc;

	/* A result's JSON is the result file itself, byte for byte as -o writes it. */
	if (r && strcmp(e->format, "json") == 0)
		rc = pmc_result_save_analyzed(r, a, e->path, err, sizeof(err));
	else if ((rc = pmc_atomic_file_open(e->path, &af, err, sizeof(err))) == 0) {
		FILE *f = pmc_atomic_file_stream(af);

		rc = r	   ? pmc_report_result_analyzed(f, e->format, r, a, ro, err, sizeof(err))
		     : set ? pmc_report_comparisons(f, e->format, set->cs, set->names, set->n, ro,
						    err, sizeof(err))
			   : pmc_report_comparison(f, e->format, c, ro, err, sizeof(err));
		if (rc == -EIO && pmc_atomic_file_write_error(af)) {
			rc = pmc_atomic_file_write_error(af); /* a full disk, not "I/O error" */
			err[0] = '\0';
		}
		if (rc < 0)
			pmc_atomic_file_abort(af);
		else
			rc = pmc_atomic_file_commit(af, err, sizeof(err));
	}
	/* The writers' messages name the file; a reporter's says what failed. */
	if (rc < 0 && err[0] && strstr(err, e->path))
		pmc_session_say(pr, PMC_SESSION_ERROR, "--export: %s", err);
	else if (rc < 0)
		pmc_session_say(pr, PMC_SESSION_ERROR, "--export '%s': %s", e->path,
				err[0] ? err : strerror(-rc));
	return rc;
}

/* Writes every export of x: r (with its analysis a, or NULL), c or set, whichever is
 * given. */
static int write_all(const struct pmc_session_exports *x, const struct pmc_result *r,
		     const struct pmc_analysis *a, const struct pmc_comparison *c,
		     const struct pmc_session_comparison_set *set, const struct pmc_report_opts *ro,
		     const struct pmc_session_printer *pr)
{
	int first = 0;

	for (size_t i = 0; x && i < x->n; i++) {
		int rc = write_one(&x->v[i], r, a, c, set, ro, pr);

		if (rc < 0 && first == 0)
			first = rc;
	}
	return first;
}

int pmc_session_exports_result(const struct pmc_session_exports *x, const struct pmc_result *r,
			       const struct pmc_analysis *a, const struct pmc_report_opts *ro,
			       const struct pmc_session_printer *pr)
{
	return write_all(x, r, a, NULL, NULL, ro, pr);
}

int pmc_session_exports_comparison(const struct pmc_session_exports *x,
				   const struct pmc_comparison *c, const struct pmc_report_opts *ro,
				   const struct pmc_session_printer *pr)
{
	return write_all(x, NULL, NULL, c, NULL, ro, pr);
}

int pmc_session_exports_comparisons(const struct pmc_session_exports *x,
				    const struct pmc_session_comparison_set *set,
				    const struct pmc_report_opts *ro,
				    const struct pmc_session_printer *pr)
{
	return write_all(x, NULL, NULL, NULL, set, ro, pr);
}
