/* `pmcbench run --library PATH.so [OPTIONS]` (docs/microbench.md, "Benchmarks in a shared
 * object"): the benchmarks a shared object registered, found in its ELF section and run
 * with the command line of a benchmark program (cli_microbench.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "microbench/library.h"

/* "--library", or a prefix of it long enough not to be one of "--list" (an option of the
 * benchmark programs' command line that follows it), with or without "=VALUE". */
static bool is_library_opt(const char *a, const char **ret_value)
{
	size_t n;

	if (strncmp(a, "--", 2) != 0)
		return false;
	a += 2;
	n = strcspn(a, "=");
	if (n < 3 || strncmp(a, "library", n) != 0 || n > strlen("library"))
		return false;
	*ret_value = a[n] == '=' ? a + n + 1 : NULL;
	return true;
}

bool pmc_cli_wants_library(int argc, char **argv)
{
	const char *v;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_library_opt(argv[i], &v))
			return true;
	return false;
}

int pmc_cli_run_library(int argc, char **argv)
{
	struct pmc_mb_library lib = {0};
	const char *path = NULL, *v;
	char **av, *prog = NULL, err[1024] = "";
	bool help = false;
	int ac = 1, code = PMC_EXIT_ERROR;
	struct stat st;

	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!av) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	av[0] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") != 0 && is_library_opt(argv[i], &v)) {
			if (!v && i + 1 >= argc) {
				pmc_cli_error("option '--library' requires a value; see 'pmcbench "
					      "help run'");
				goto out;
			}
			if (path) {
				pmc_cli_error("--library: give one shared object");
				goto out;
			}
			path = v ? v : argv[++i];
			continue;
		}
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			help = true;
		av[ac++] = argv[i];
	}
	if (!path) {
		pmc_cli_error("--library: no shared object given");
		goto out;
	}
	if (asprintf(&prog, "pmcbench run --library %s", path) < 0) {
		prog = NULL;
		pmc_cli_error("out of memory");
		goto out;
	}
	/* --help needs no object: the options are those of every benchmark program. */
	if (help) {
		code = pmc_cli_microbench(ac, av, prog, NULL, NULL, NULL);
		goto out;
	}
	if (stat(path, &st) < 0) {
		pmc_cli_error("--library %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		pmc_cli_error("--library %s: not a regular file", path);
		goto out;
	}
	if (pmc_mb_library_open(path, &lib, err, sizeof(err)) < 0) {
		pmc_cli_error("--library: %s", err);
		goto out;
	}
	code = pmc_cli_microbench(ac, av, prog, lib.begin, lib.end, path);
out:
	pmc_mb_library_close(&lib);
	free(prog);
	free(av);
	return code;
}
