/* `pmcbench report --lines FUNC PROFILE` (docs/profile.md, "Source lines") and
 * `report --annotate FUNC PROFILE` ("Instructions"): the reporter's table, or one line
 * saying why there is none. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "cli/cli.h"
#include "elf/disasm.h"
#include "profile/annotate.h"
#include "profile/profile.h"
#include "reporters/profile_annotate.h"
#include "reporters/profile_lines.h"

void pmc_cli_report_unknown_function(const char *path, const struct pmc_profile *p,
				     const char *option, const char *fn)
{
	struct pmc_profile_fn *fns = NULL;
	struct pmc_suggest s;
	char msg[1024];
	size_t n = 0;

	pmc_suggest_init(&s, fn, strlen(fn));
	if (pmc_profile_functions(p, &fns, &n) == 0)
		for (size_t i = 0; i < n; i++)
			pmc_suggest_offer(&s, fns[i].name, fns[i].name);
	snprintf(msg, sizeof(msg), "report %s: no function '%s' in %s", option, fn, path);
	pmc_suggest_append(&s, msg, sizeof(msg), "'pmcbench report PROFILE' lists its functions");
	pmc_cli_error("%s", msg);
	pmc_profile_functions_free(fns, n);
}

int pmc_cli_report_lines(const char *path, const struct pmc_profile *p, const char *fn)
{
	int r = pmc_profile_report_lines(stdout, p, fn);

	if (r == 0)
		r = pmc_session_stream_flush(stdout);
	switch (r) {
	case 0:
		return PMC_EXIT_OK;
	case -ENODATA:
		pmc_cli_error("report --lines: %s keeps no source lines (an exact, imported or "
			      "older profile): record it again with 'pmcbench record -o FILE -- "
			      "COMMAND'",
			      path);
		break;
	case -ENOENT:
		pmc_cli_report_unknown_function(path, p, "--lines", fn);
		break;
	case -ENOEXEC:
		pmc_cli_error("report --lines: %s: no line table covers the addresses of '%s' "
			      "(its object is stripped or was built without -g): rebuild it with "
			      "-g, or install its debug info, and record again",
			      path, fn);
		break;
	default:
		pmc_cli_error("report: cannot write to standard output: %s", strerror(-r));
	}
	return PMC_EXIT_ERROR;
}

bool pmc_cli_report_annotate_possible(void)
{
	if (pmc_disasm_available())
		return true;
	if (pmc_disasm_built())
		pmc_cli_error("report --annotate: cannot load Capstone, the disassembler (%s): "
			      "install it (Debian: apt-get install libcapstone4)",
			      pmc_disasm_error());
	else
		pmc_cli_error("report --annotate: this pmcbench was built without Capstone, the "
			      "disassembler: install it (Debian: apt-get install libcapstone-dev) "
			      "and build again (meson setup -Dcapstone=enabled)");
	return false;
}

/* The one line of an annotation that could not be made (rc of pmc_profile_annotate). */
static void annotate_error(const char *path, const struct pmc_profile *p, const char *fn, int rc,
			   const char *err)
{
	switch (rc) {
	case -ENODATA:
		pmc_cli_error(
		    "report --annotate: %s keeps no sampled addresses (an exact, imported "
		    "or older profile): record it again with 'pmcbench record -o FILE -- "
		    "COMMAND'",
		    path);
		break;
	case -ENOENT:
		if (!*err) {
			pmc_cli_report_unknown_function(path, p, "--annotate", fn);
			break;
		}
		pmc_cli_error("report --annotate: %s (its object is gone since the recording)",
			      err);
		break;
	case -ESRCH:
		pmc_cli_error(
		    "report --annotate: no sample of %s ended in '%s' (it is only a "
		    "caller): 'pmcbench report --tree=caller --function=%s %s' shows what "
		    "it calls",
		    path, fn, fn, path);
		break;
	case -EMEDIUMTYPE:
		pmc_cli_error("report --annotate: the code of '%s' is in no file pmcbench can "
			      "read (the kernel, the vdso or JIT code)",
			      fn);
		break;
	case -EPROTONOSUPPORT:
		pmc_cli_error("report --annotate: '%s' is code of a machine pmcbench does not "
			      "disassemble (x86-64 and AArch64 only)",
			      fn);
		break;
	case -ENOSYS:
		pmc_cli_report_annotate_possible();
		break;
	case -ENOMEM:
		pmc_cli_error("out of memory");
		break;
	default:
		pmc_cli_error("report --annotate: %s",
			      *err ? err : "cannot write to standard output");
	}
}

int pmc_cli_report_annotate(const char *path, const struct pmc_profile *p, const char *fn)
{
	struct pmc_annotation *a = NULL;
	char err[1024] = "";
	int r = pmc_profile_annotate(p, fn, &a, err, sizeof(err));

	if (r < 0) {
		annotate_error(path, p, fn, r, err);
		return PMC_EXIT_ERROR;
	}
	r = pmc_profile_report_annotate(stdout, p, a, pmc_session_stream_width(stdout));
	if (r == 0)
		r = pmc_session_stream_flush(stdout);
	pmc_annotation_free(a);
	if (r < 0) {
		pmc_cli_error("report: cannot write to standard output: %s", strerror(-r));
		return PMC_EXIT_ERROR;
	}
	return PMC_EXIT_OK;
}
