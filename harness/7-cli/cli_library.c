/* `pmcbench run --library PATH.so [OPTIONS]` (docs/microbench.md, "Benchmarks in a shared
 * object"): the benchmarks a shared object registered, found in its ELF section and run
 * with the command line of a benchmark program (cli_microbench.c). Two of them are two
 * builds of one set of benchmarks, compared round by round (docs/microbench.md,
 * "Comparing two builds"), each named by the -n LABEL before it, as `run -n A -c CMD`
 * names a command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "microbench/library.h"

#define MAX_BUILDS 2

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

/* -n NAME, -nNAME, --name NAME or --name=NAME: run's label of what follows it. */
static bool is_name_opt(const char *a, const char **ret_value)
{
	if (strncmp(a, "-n", 2) == 0) {
		*ret_value = a[2] ? a + 2 : NULL;
		return true;
	}
	if (strcmp(a, "--name") == 0 || strncmp(a, "--name=", 7) == 0) {
		*ret_value = a[6] == '=' ? a + 7 : NULL;
		return true;
	}
	return false;
}

bool pmc_cli_wants_library(int argc, char **argv)
{
	const char *v;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_library_opt(argv[i], &v))
			return true;
	return false;
}

/* The start of the last k components of p (all of p when it has fewer). */
static const char *last_components(const char *p, size_t k)
{
	const char *s = p + strlen(p);

	while (s > p && !(s[-1] == '/' && --k == 0))
		s--;
	return s;
}

/* The default labels of two builds: the shortest ends of their paths, in whole
 * components, that tell them apart (libx.so and liby.so; a/libx.so and b/libx.so), or A
 * and B for one path given twice; a ':' becomes '_' (it ends a label in a name). */
static int default_labels(const char *const path[MAX_BUILDS], char *ret[MAX_BUILDS])
{
	const char *tail[MAX_BUILDS] = {"A", "B"};

	/* The paths differ, so their ends do at the latest when one is whole. */
	for (size_t k = 1; strcmp(path[0], path[1]) != 0; k++) {
		tail[0] = last_components(path[0], k);
		tail[1] = last_components(path[1], k);
		if (strcmp(tail[0], tail[1]) != 0)
			break;
	}
	for (int i = 0; i < MAX_BUILDS; i++) {
		ret[i] = strdup(tail[i]);
		if (!ret[i])
			return -ENOMEM;
		for (char *c = ret[i]; *c; c++)
			if (*c == ':')
				*c = '_';
	}
	return 0;
}

int pmc_cli_build_labels(const char *const path[MAX_BUILDS], const char *const given[MAX_BUILDS],
			 char *ret[MAX_BUILDS])
{
	char *labels[MAX_BUILDS] = {NULL, NULL};

	if (default_labels(path, labels) < 0)
		goto oom;
	for (size_t i = 0; i < MAX_BUILDS; i++)
		if (given[i]) {
			free(labels[i]);
			if (!(labels[i] = strdup(given[i])))
				goto oom;
		}
	if (strcmp(labels[0], labels[1]) == 0) {
		pmc_cli_error("-n: both builds are labelled '%s'; give each its own label",
			      labels[0]);
		free(labels[0]);
		free(labels[1]);
		return -EINVAL;
	}
	ret[0] = labels[0];
	ret[1] = labels[1];
	return 0;
oom:
	free(labels[0]);
	free(labels[1]);
	pmc_cli_error("out of memory");
	return -ENOMEM;
}

/* Checks path as a --library: a regular file. 0, or -EINVAL after an error line. */
static int check_library(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		pmc_cli_error("--library %s: %s", path, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		pmc_cli_error("--library %s: not a regular file", path);
		return -EINVAL;
	}
	return 0;
}

int pmc_cli_check_label(const char *label)
{
	if (label[0] && !strchr(label, ':'))
		return 0;
	pmc_cli_error("-n '%s': a build's label must not be empty or hold ':' (its benchmarks "
		      "are named LABEL:name)",
		      label);
	return -EINVAL;
}

int pmc_cli_run_library(int argc, char **argv)
{
	struct pmc_mb_library lib[MAX_BUILDS] = {{0}};
	struct pmc_cli_build builds[MAX_BUILDS] = {{0}};
	const char *path[MAX_BUILDS] = {NULL, NULL}, *given[MAX_BUILDS] = {NULL, NULL};
	const char *name = NULL, *v;
	char **av, *prog = NULL, *labels[MAX_BUILDS] = {NULL, NULL}, err[1024] = "";
	bool help = false, options = true;
	int ac = 1, code = PMC_EXIT_ERROR;
	size_t n = 0;

	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!av) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	av[0] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			options = false;
		if (options && is_library_opt(argv[i], &v)) {
			if (!v && i + 1 >= argc) {
				pmc_cli_error("option '--library' requires a value; see 'pmcbench "
					      "help run'");
				goto out;
			}
			if (n == MAX_BUILDS) {
				pmc_cli_error("--library: give one shared object, or two builds of "
					      "one to compare");
				goto out;
			}
			given[n] = name;
			path[n++] = v ? v : argv[++i];
			name = NULL;
			continue;
		}
		if (options && is_name_opt(argv[i], &v)) {
			if (!v && i + 1 >= argc) {
				pmc_cli_error("option '-n' requires a value: the label of the "
					      "--library that follows it");
				goto out;
			}
			name = v ? v : argv[++i];
			if (pmc_cli_check_label(name) < 0)
				goto out;
			continue;
		}
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			help = true;
		av[ac++] = argv[i];
	}
	if (!n) {
		pmc_cli_error("--library: no shared object given");
		goto out;
	}
	if (name) {
		pmc_cli_error("-n %s: no --library follows it; give -n LABEL before the "
			      "--library it names",
			      name);
		goto out;
	}
	if (n == 1 && given[0]) {
		pmc_cli_error("-n %s: a label names one of two builds; give a second --library "
			      "to compare with, or drop -n",
			      given[0]);
		goto out;
	}
	if (n == 2 && pmc_cli_build_labels(path, given, labels) < 0)
		goto out;
	if (asprintf(&prog, "pmcbench run --library %s%s%s", path[0], n == 2 ? " --library " : "",
		     n == 2 ? path[1] : "") < 0) {
		prog = NULL;
		pmc_cli_error("out of memory");
		goto out;
	}
	/* --help needs no object: the options are those of every benchmark program. */
	if (help) {
		code = pmc_cli_microbench(ac, av, prog, NULL, 0);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (check_library(path[i]) < 0)
			goto out;
		if (pmc_mb_library_open(path[i], &lib[i], err, sizeof(err)) < 0) {
			pmc_cli_error("--library: %s", err);
			goto out;
		}
		builds[i] = (struct pmc_cli_build){
		    .label = labels[i], .path = path[i], .begin = lib[i].begin, .end = lib[i].end};
	}
	code = pmc_cli_microbench(ac, av, prog, builds, n);
out:
	for (size_t i = 0; i < MAX_BUILDS; i++) {
		pmc_mb_library_close(&lib[i]);
		free(labels[i]);
	}
	free(prog);
	free(av);
	return code;
}
