/* The target's environment (target_env.h). Built once per `run`, before any child is
 * cloned: the child between clone and exec may only make system calls (spawn.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/target_env.h"

/* The length of the name of a "NAME=value" entry (all of it when it has no '='). */
static size_t name_len(const char *entry)
{
	return strcspn(entry, "=");
}

static bool same_name(const char *entry, const char *name, size_t len)
{
	return name_len(entry) == len && strncmp(entry, name, len) == 0;
}

/* The caller's entry for name, the first if there are several (as getenv), or NULL. */
static const char *lookup(char *const *env, const char *name, size_t len)
{
	for (size_t i = 0; env && env[i]; i++)
		if (same_name(env[i], name, len))
			return env[i];
	return NULL;
}

static bool chosen_has(const char *const *chosen, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (same_name(chosen[i], name, len))
			return true;
	return false;
}

/* By name, then by the rest: "A" before "A1" whatever follows the names. */
static int cmp_entries(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = name_len(x), ly = name_len(y);
	int c = strncmp(x, y, lx < ly ? lx : ly);

	if (c)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

/* One block: n + 1 pointers, then the strings. */
static char **pack(const char *const *chosen, size_t n, size_t *ret_text)
{
	size_t text = 0;
	char **block, *p;

	for (size_t i = 0; i < n; i++)
		text += strlen(chosen[i]) + 1;
	block = malloc((n + 1) * sizeof(char *) + text);
	if (!block)
		return NULL;
	p = (char *)(block + n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(chosen[i]) + 1;

		memcpy(p, chosen[i], len);
		block[i] = p;
		p += len;
	}
	block[n] = NULL;
	*ret_text = text;
	return block;
}

/* "normalized: HOME, LC_ALL=C, PATH; 3 variables, 187 bytes": the names, and the value
 * only of the fixed entry, which is ours. */
static char *describe_normalized(const char *const *chosen, size_t n, const char *fixed,
				 size_t text)
{
	size_t len = 64;
	char *s, *p;

	for (size_t i = 0; i < n; i++)
		len += (chosen[i] == fixed ? strlen(fixed) : name_len(chosen[i])) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s + sprintf(s, "normalized: ");
	for (size_t i = 0; i < n; i++) {
		size_t l = chosen[i] == fixed ? strlen(fixed) : name_len(chosen[i]);

		if (i)
			p += sprintf(p, ", ");
		memcpy(p, chosen[i], l);
		p += l;
	}
	sprintf(p, "%s%zu variable%s, %zu bytes", n ? "; " : "", n, n == 1 ? "" : "s", text);
	return s;
}

int pmc_target_env_build(char *const *env, bool inherit, const char *const *keep, char ***ret_envp,
			 char **ret_desc)
{
	static const char *const kept[] = {PMC_TARGET_ENV_KEPT};
	static const char fixed[] = PMC_TARGET_ENV_FIXED;
	size_t nkept = sizeof(kept) / sizeof(kept[0]), nkeep = 0, nenv = 0, cap, n = 0, text;
	const char **chosen;
	char **envp = NULL, *desc = NULL;
	int r = -ENOMEM;

	if (!ret_envp || !ret_desc)
		return -EINVAL;
	for (size_t i = 0; keep && keep[i]; i++) {
		if (!keep[i][0] || strchr(keep[i], '='))
			return -EINVAL;
		nkeep++;
	}
	while (env && env[nenv])
		nenv++;
	cap = inherit ? nenv : nkept + nkeep + 1;
	chosen = malloc((cap ? cap : 1) * sizeof(*chosen));
	if (!chosen)
		return -ENOMEM;
	if (inherit) {
		for (size_t i = 0; i < nenv; i++)
			chosen[n++] = env[i];
	} else {
		for (size_t i = 0; i < nkept + nkeep; i++) {
			const char *name = i < nkept ? kept[i] : keep[i - nkept];
			size_t len = strlen(name);
			const char *entry = lookup(env, name, len);

			if (entry && !chosen_has(chosen, n, name, len))
				chosen[n++] = entry;
		}
		if (!chosen_has(chosen, n, fixed, name_len(fixed)))
			chosen[n++] = fixed;
		qsort(chosen, n, sizeof(*chosen), cmp_entries);
	}
	envp = pack(chosen, n, &text);
	if (!envp)
		goto out;
	if (inherit) {
		if (asprintf(&desc, "inherited: %zu variable%s, %zu bytes", n, n == 1 ? "" : "s",
			     text) < 0)
			desc = NULL;
	} else {
		desc = describe_normalized(chosen, n, fixed, text);
	}
	if (!desc)
		goto out;
	*ret_envp = envp;
	*ret_desc = desc;
	envp = NULL;
	r = 0;
out:
	free(envp);
	free(chosen);
	return r;
}
