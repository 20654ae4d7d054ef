/* The valgrind backend's command line: finding valgrind, and the command a run executes
 * under it (the tool, the reference cache geometry, where the output files and logs go).
 * What a run leaves behind is read by valgrind_outputs.c. */
#include "counters/valgrind/valgrind.h"
#include "counters/valgrind/valgrind_priv.h"
#include "base/grow.h"
#include "base/path.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference cache geometry (size,associativity,line size), used unless the caller
 * asks for the host's: a typical current x86 core. Without it valgrind simulates what
 * CPUID reports, which differs between CI runners, so simulated misses would too. */
#define REF_I1 "--I1=32768,8,64"
#define REF_D1 "--D1=32768,8,64"
#define REF_LL "--LL=8388608,16,64"

/* ---- finding programs ---------------------------------------------------------------- */

int pmc_valgrind_find(char **ret_path)
{
	char *path = NULL, *abs;
	int r;

	if (!ret_path)
		return -EINVAL;
	r = pmc_find_executable("valgrind", &path);
	if (r < 0)
		return -ENOENT;
	if (path[0] != '/') {
		/* A relative PATH entry: callers exec it after changing nothing, but an
		 * absolute path is what they record. */
		abs = realpath(path, NULL);
		free(path);
		if (!abs)
			return -errno;
		path = abs;
	}
	*ret_path = path;
	return 0;
}

/* ---- the command line ---------------------------------------------------------------- */

struct strv {
	char **v;
	size_t n;
	int error;
};

static void strv_addf(struct strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void strv_addf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str;
	int q;

	if (s->error)
		return;
	if (pmc_grow(&s->v, s->n, sizeof(*s->v)) < 0) {
		s->error = -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	q = vasprintf(&str, fmt, ap);
	va_end(ap);
	if (q < 0) {
		s->error = -ENOMEM;
		return;
	}
	s->v[s->n++] = str;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* Packs the strings into one block: the NULL-terminated pointer array, then the text. */
static int strv_pack(const struct strv *s, char ***ret)
{
	size_t bytes = (s->n + 1) * sizeof(char *);
	char **block, *text;

	for (size_t i = 0; i < s->n; i++)
		bytes += strlen(s->v[i]) + 1;
	block = malloc(bytes);
	if (!block)
		return -ENOMEM;
	text = (char *)(block + s->n + 1);
	for (size_t i = 0; i < s->n; i++) {
		size_t len = strlen(s->v[i]) + 1;

		memcpy(text, s->v[i], len);
		block[i] = text;
		text += len;
	}
	block[s->n] = NULL;
	*ret = block;
	return 0;
}

int pmc_valgrind_argv(const struct pmc_valgrind_opts *opts, char *const *target_argv,
		      char ***ret_argv)
{
	struct pmc_valgrind_opts o;
	struct strv s = {0};
	const char *tool;
	char *found = NULL;
	int r;

	if (!ret_argv || !target_argv || !target_argv[0] || !target_argv[0][0])
		return -EINVAL;
	if (!opts)
		return -EINVAL;
	o = *opts;
	/* valgrind expands %p and %q{VAR} in file names, so a '%' in the directory would
	 * put the files somewhere else. */
	if (!o.outdir || !o.outdir[0] || strchr(o.outdir, '%'))
		return -EINVAL;
	if (o.tool != PMC_VALGRIND_CALLGRIND && o.tool != PMC_VALGRIND_CACHEGRIND)
		return -EINVAL;
	if (o.tool == PMC_VALGRIND_CACHEGRIND && (o.collect_only || o.collect_atstart_off))
		return -EINVAL; /* cachegrind 3.19 has no collection control */
	for (const char *const *p = o.collect_only; p && *p; p++)
		if (!(*p)[0])
			return -EINVAL;

	/* Check the target ourselves: valgrind reports a missing one only on its stderr,
	 * with exit status 127, which the target itself could also return. */
	r = pmc_find_executable(target_argv[0], &found);
	free(found);
	if (r < 0)
		return r;

	tool = o.tool == PMC_VALGRIND_CALLGRIND ? "callgrind" : "cachegrind";
	strv_addf(&s, "%s", o.valgrind ? o.valgrind : "valgrind");
	strv_addf(&s, "--tool=%s", tool);
	/* valgrind's own messages go to a log per process, so that they can be reported
	 * when a run fails, and never mix with the target's output. */
	strv_addf(&s, "--log-file=%s/" LOG_PREFIX "%%p", o.outdir);
	strv_addf(&s, "--%s-out-file=%s/%s.out.%%p", tool, o.outdir, tool);
	strv_addf(&s, "--cache-sim=%s", o.no_cache_sim ? "no" : "yes");
	strv_addf(&s, "--branch-sim=%s", o.no_branch_sim ? "no" : "yes");
	strv_addf(&s, "--trace-children=%s", o.no_children ? "no" : "yes");
	if (!o.no_cache_sim && !o.host_caches) {
		strv_addf(&s, REF_I1);
		strv_addf(&s, REF_D1);
		strv_addf(&s, REF_LL);
	}
	if (o.tool == PMC_VALGRIND_CALLGRIND) {
		/* A child forked without exec inherits its parent's counters and would
		 * report them again. A dump writes the counts so far and zeroes them, so a
		 * dump just before fork leaves the child only its own work. glibc >= 2.34
		 * forks in _Fork (called by fork), older ones in fork itself. */
		strv_addf(&s, "--dump-before=fork");
		strv_addf(&s, "--dump-before=_Fork");
		if (o.collect_atstart_off || o.collect_only)
			strv_addf(&s, "--collect-atstart=no");
		for (const char *const *p = o.collect_only; p && *p; p++)
			strv_addf(&s, "--toggle-collect=%s", *p);
	}
	for (const char *const *p = o.extra_args; p && *p; p++)
		strv_addf(&s, "%s", *p);
	strv_addf(&s, "--");
	for (char *const *p = target_argv; *p; p++)
		strv_addf(&s, "%s", *p);

	r = s.error;
	if (r == 0)
		r = strv_pack(&s, ret_argv);
	strv_free(&s);
	return r;
}
