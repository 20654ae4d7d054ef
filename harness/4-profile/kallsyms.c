/* The kernel's function symbols from /proc/kallsyms (kallsyms.h). Each line is "ADDRESS
 * TYPE NAME [MODULE]"; the file lists the core kernel in address order, then the
 * modules', so the table is sorted once read. */
#include "profile/kallsyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"

/* What the last symbol covers: the file gives no sizes, and nothing follows it. */
#define KALLSYMS_LAST_SIZE 4096

/* 16 bytes: a kernel has ~120,000 functions, kept while a recording runs. */
struct ksym {
	uint64_t addr;
	uint32_t name; /* offset into the pool */
	bool global;   /* an upper-case type: global binding */
};

struct pmc_kallsyms {
	struct ksym *syms;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
};

static unsigned underscores(const char *s)
{
	unsigned n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Address order; at one address the name that reads best first: global, the fewest
 * leading underscores, the shortest, then byte order (as harness/1-elf/symbols.c ranks
 * ELF symbols), so that the choice depends on nothing but the symbols. */
static int cmp_ksym(const void *pa, const void *pb, void *pool)
{
	const struct ksym *a = pa, *b = pb;
	const char *na = (const char *)pool + a->name, *nb = (const char *)pool + b->name;
	size_t la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->global != b->global)
		return a->global ? -1 : 1;
	if (underscores(na) != underscores(nb))
		return underscores(na) < underscores(nb) ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(na, nb);
}

/* Why the addresses are hidden, from kernel.kptr_restrict. */
static void hidden_reason(const char *path, char *why, size_t whylen)
{
	FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	if (v >= 0)
		pmc_err_set(
		    why, whylen, "%s shows no addresses (kernel.kptr_restrict is %d: %s)", path, v,
		    v >= 2   ? "hidden from everyone; set it to 0 or 1"
		    : v == 1 ? "shown with CAP_SYSLOG only; run as root or set it to 0"
			     : "shown where perf_event_paranoid <= 1; lower it or run as root");
	else
		pmc_err_set(why, whylen, "%s shows no addresses (kernel.kptr_restrict)", path);
}

/* Gives back what the doubling left unused: the table stays for the whole recording. */
static void shrink(struct pmc_kallsyms *k)
{
	void *p;

	if ((p = realloc(k->syms, k->n * sizeof(*k->syms)))) {
		k->syms = p;
		k->cap = k->n;
	}
	if ((p = realloc(k->pool, k->pool_len))) {
		k->pool = p;
		k->pool_cap = k->pool_len;
	}
}

int pmc_kallsyms_load(const char *path, struct pmc_kallsyms **ret, char *why, size_t whylen)
{
	struct pmc_kallsyms *k;
	char *line = NULL;
	size_t cap = 0, keep = 0;
	bool nonzero = false;
	FILE *f;
	int rc = 0;

	if (!ret)
		return -EINVAL;
	if (!path)
		path = "/proc/kallsyms";
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		pmc_err_set(why, whylen, "cannot read %s: %s", path, strerror(-rc));
		return rc;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		rc = -ENOMEM;
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long addr;
		char type;
		int name = 0, end = 0;
		size_t len;

		if (sscanf(line, "%llx %c %n%*s%n", &addr, &type, &name, &end) != 2 || end <= name)
			continue;
		nonzero |= addr != 0;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		len = (size_t)(end - name);
		if (k->pool_len + len + 1 > UINT32_MAX) {
			rc = -ENOMEM; /* 4 GiB of names is not a kernel's */
			goto out;
		}
		if ((rc = pmc_grow_to(&k->syms, &k->cap, k->n + 1, sizeof(*k->syms))) < 0 ||
		    (rc = pmc_grow_to(&k->pool, &k->pool_cap, k->pool_len + len + 1, 1)) < 0)
			goto out;
		memcpy(k->pool + k->pool_len, line + name, len);
		k->pool[k->pool_len + len] = '\0';
		k->syms[k->n++] =
		    (struct ksym){addr, (uint32_t)k->pool_len, type == 'T' || type == 'W'};
		k->pool_len += len + 1;
	}
	if (ferror(f)) {
		rc = -EIO;
		pmc_err_set(why, whylen, "cannot read %s: %s", path, strerror(EIO));
		goto out;
	}
	if (!nonzero && k->n) {
		rc = -EPERM;
		hidden_reason(path, why, whylen);
		goto out;
	}
	if (k->n == 0) {
		rc = -ENOENT;
		pmc_err_set(why, whylen, "%s lists no kernel function", path);
		goto out;
	}
	qsort_r(k->syms, k->n, sizeof(*k->syms), cmp_ksym, k->pool);
	for (size_t i = 0; i < k->n; i++)
		if (keep == 0 || k->syms[keep - 1].addr != k->syms[i].addr)
			k->syms[keep++] = k->syms[i];
	k->n = keep;
	shrink(k);
	*ret = k;
	k = NULL;
out:
	if (rc == -ENOMEM)
		pmc_err_set(why, whylen, "out of memory reading %s", path);
	pmc_kallsyms_free(k);
	free(line);
	fclose(f);
	return rc;
}

const char *pmc_kallsyms_lookup(const struct pmc_kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!k)
		return NULL;
	hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (lo == k->n && addr - k->syms[lo - 1].addr >= KALLSYMS_LAST_SIZE))
		return NULL;
	return k->pool + k->syms[lo - 1].name;
}

void pmc_kallsyms_free(struct pmc_kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->pool);
	free(k);
}
