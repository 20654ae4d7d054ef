/* The instructions of one function with their samples (annotate.h). */
#include "profile/annotate.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "elf/code.h"
#include "elf/disasm.h"
#include "elf/symbols.h"
#include "profile/lines.h"
#include "profile/names.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"

/* The largest function disassembled: far beyond any function's code, and a symbol's
 * size read from a hostile file allocates no more. */
#define ANNOTATE_MAX_SIZE (16u << 20)

_Static_assert(PMC_ANNOTATE_TEXT == PMC_INSN_TEXT, "an instruction's text fits");

/* The instruction of insns (n, sorted by address) whose bytes hold address a, or NULL. */
static struct pmc_annotation_insn *insn_at(struct pmc_annotation_insn *insns, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	/* The last instruction starting at or below a. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (insns[mid].address <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && a - insns[lo - 1].address < insns[lo - 1].size ? &insns[lo - 1] : NULL;
}

int pmc_annotate_attribute(struct pmc_annotation_insn *insns, size_t n,
			   const struct pmc_annotate_sample *s, size_t m, uint64_t *ret_outside,
			   uint64_t *ret_outside_samples)
{
	uint64_t out = 0, out_samples = 0;

	for (size_t j = 0; j < m; j++) {
		struct pmc_annotation_insn *in = insn_at(insns, n, s[j].address);
		uint64_t *w = in ? &in->weight : &out, *k = in ? &in->samples : &out_samples;

		if (*w + s[j].weight < *w || *k + s[j].samples < *k)
			return -EOVERFLOW;
		*w += s[j].weight;
		*k += s[j].samples;
	}
	*ret_outside = out;
	*ret_outside_samples = out_samples;
	return 0;
}

void pmc_annotation_free(struct pmc_annotation *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->insns[i].file);
		free(a->insns[i].inlined);
	}
	free(a->insns);
	free(a->function);
	free(a->object);
	free(a);
}

/* fn's self weight, and whether p has a function so named. */
static int function_self(const struct pmc_profile *p, const char *fn, uint64_t *ret_self)
{
	struct pmc_profile_fn *fns;
	size_t n;
	int rc = pmc_profile_functions(p, &fns, &n);

	if (rc < 0)
		return rc;
	rc = -ENOENT;
	for (size_t i = 0; i < n; i++)
		if (strcmp(fns[i].name, fn) == 0) {
			*ret_self = fns[i].self;
			rc = 0;
		}
	pmc_profile_functions_free(fns, n);
	return rc;
}

/* The line-table entries of fn (frames so named) into *ret (*ret_n), and the object
 * whose entries weigh most; *ret_hot is that object's heaviest address. */
static int collect(const struct pmc_profile *p, const char *fn,
		   const struct pmc_profile_line ***ret, size_t *ret_n, const char **ret_object,
		   uint64_t *ret_hot, const char **ret_symbol)
{
	const struct pmc_profile_lines *t = pmc_profile_lines(p);
	size_t n = pmc_profile_lines_count(t), k = 0;
	const struct pmc_profile_line **e = calloc(n + 1, sizeof(*e)), *hot = NULL;
	uint64_t best = 0;
	char name[512];

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct pmc_profile_line *l = pmc_profile_lines_get(t, i);

		if (strcmp(pmc_profile_frame_name(p, l->frame, name, sizeof(name)), fn) == 0)
			e[k++] = l;
	}
	/* The heaviest object: objects are interned, equal paths equal pointers. */
	for (size_t i = 0; i < k; i++) {
		const char *obj = pmc_profile_frame(p, e[i]->frame)->object;
		uint64_t sum = 0;

		for (size_t j = 0; j < k; j++)
			if (pmc_profile_frame(p, e[j]->frame)->object == obj)
				sum += e[j]->weight;
		if (!hot || sum > best) {
			best = sum;
			hot = e[i];
		}
	}
	for (size_t i = 0; i < k; i++)
		if (pmc_profile_frame(p, e[i]->frame)->object ==
			pmc_profile_frame(p, hot->frame)->object &&
		    e[i]->weight > hot->weight)
			hot = e[i];
	*ret = e;
	*ret_n = k;
	*ret_object = hot ? pmc_profile_frame(p, hot->frame)->object : NULL;
	*ret_hot = hot ? hot->address : 0;
	*ret_symbol = hot ? pmc_profile_frame(p, hot->frame)->symbol : NULL;
	return 0;
}

/* Whether the file's symbol sym is the profile's symbol want, as names.h names it. */
static int same_symbol(const char *sym, const char *want, bool *ret)
{
	char *name = NULL;
	int rc = pmc_profile_symbol_name(sym, &name);

	if (rc < 0)
		return rc;
	*ret = want && strcmp(name ? name : sym, want) == 0;
	free(name);
	return 0;
}

/* The symbol of the object holding hot, which must be the one recorded (want): its
 * range into a. */
static int symbol_range(struct pmc_annotation *a, uint64_t hot, const char *want, char *err,
			size_t errlen)
{
	struct pmc_symtab *st = NULL;
	const char *sym;
	bool same = false;
	int rc = pmc_symtab_load(a->object, &st, err, errlen);

	if (rc < 0)
		return rc;
	sym = pmc_symtab_lookup_range(st, hot, &a->start, &a->size);
	if (sym && (rc = same_symbol(sym, want, &same)) < 0)
		goto out;
	rc = 0;
	if (!same) {
		pmc_err_set(err, errlen,
			    "%s has %s%s%s at 0x%llx, where samples of %s ended: the file changed "
			    "since the recording; record again",
			    a->object, sym ? "the function '" : "no function", sym ? sym : "",
			    sym ? "'" : "", (unsigned long long)hot, a->function);
		rc = -ESTALE;
	} else if (a->size > ANNOTATE_MAX_SIZE) {
		pmc_err_set(err, errlen, "%s: the function at 0x%llx is %llu bytes, more than %u",
			    a->object, (unsigned long long)a->start, (unsigned long long)a->size,
			    ANNOTATE_MAX_SIZE);
		rc = -EFBIG;
	}
out:
	pmc_symtab_free(st);
	return rc;
}

/* a's instructions from its object's code. */
static int disassemble(struct pmc_annotation *a, char *err, size_t errlen)
{
	struct pmc_elf_code code = {0};
	struct pmc_insn *insns = NULL;
	size_t n = 0;
	int rc = pmc_elf_read_code(a->object, a->start, a->size, &code, err, errlen);

	if (rc < 0)
		return rc;
	a->machine = code.machine;
	rc = pmc_disasm(code.machine, code.bytes, code.size, code.addr, &insns, &n);
	free(code.bytes);
	if (rc < 0)
		return rc;
	if (!(a->insns = calloc(n + 1, sizeof(*a->insns)))) {
		free(insns);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		a->insns[i].address = insns[i].address;
		a->insns[i].size = insns[i].size;
		memcpy(a->insns[i].text, insns[i].text, sizeof(a->insns[i].text));
	}
	a->n = n;
	free(insns);
	return 0;
}

/* Each instruction's source line, from the object's line table. */
static int sources(struct pmc_annotation *a)
{
	struct pmc_lines_object *lo;
	int rc = pmc_lines_object_open(a->object, &lo);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < a->n && rc == 0; i++) {
		struct pmc_profile_line l;
		struct pmc_annotation_insn *in = &a->insns[i];

		pmc_lines_object_source(lo, in->address, &l);
		if (l.file && !(in->file = strdup(l.file)))
			rc = -ENOMEM;
		in->line = l.line;
		if (l.inlined && !(in->inlined = strdup(l.inlined)))
			rc = -ENOMEM;
	}
	pmc_lines_object_close(lo);
	return rc;
}

/* The source lines of the instructions where samples ended, as the recording found them
 * (the profile's line table): no line table of the object is read again. */
static int recorded_sources(const struct pmc_profile *p, struct pmc_annotation *a,
			    const struct pmc_profile_line **e, size_t k, const char *object)
{
	for (size_t i = 0; i < k; i++) {
		struct pmc_annotation_insn *in = insn_at(a->insns, a->n, e[i]->address);

		if (!in || in->file || !e[i]->file ||
		    pmc_profile_frame(p, e[i]->frame)->object != object)
			continue;
		if (!(in->file = strdup(e[i]->file)) ||
		    (e[i]->inlined && !(in->inlined = strdup(e[i]->inlined))))
			return -ENOMEM;
		in->line = e[i]->line;
	}
	return 0;
}

/* The samples of a's entries into a's instructions; those of other objects outside. */
static int attribute(const struct pmc_profile *p, struct pmc_annotation *a,
		     const struct pmc_profile_line **e, size_t k, const char *object)
{
	struct pmc_annotate_sample *s = calloc(k + 1, sizeof(*s));
	uint64_t out, out_samples;
	size_t m = 0;
	int rc;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++) {
		if (pmc_profile_frame(p, e[i]->frame)->object == object) {
			s[m++] = (struct pmc_annotate_sample){e[i]->address, e[i]->weight,
							      e[i]->samples};
		} else {
			/* No overflow: these split fn's self weight, which fits. */
			a->outside += e[i]->weight;
			a->outside_samples += e[i]->samples;
		}
	}
	rc = pmc_annotate_attribute(a->insns, a->n, s, m, &out, &out_samples);
	free(s);
	if (rc < 0)
		return rc;
	a->outside += out;
	a->outside_samples += out_samples;
	for (size_t i = 0; i < a->n; i++) {
		a->weight += a->insns[i].weight;
		a->samples += a->insns[i].samples;
	}
	return 0;
}

/* pmc_profile_annotate; every_line: the source line of every instruction from the
 * object's line table, else those of the instructions with samples as recorded. */
static int annotate(const struct pmc_profile *p, const char *fn, bool every_line,
		    struct pmc_annotation **ret, char *err, size_t errlen)
{
	const struct pmc_profile_line **e = NULL;
	struct pmc_annotation *a = NULL;
	const char *object, *symbol;
	size_t k = 0;
	uint64_t hot, self = 0;
	int rc;

	if (!pmc_profile_lines(p))
		return -ENODATA;
	if ((rc = function_self(p, fn, &self)) < 0)
		return rc;
	if ((rc = collect(p, fn, &e, &k, &object, &hot, &symbol)) < 0)
		return rc;
	rc = -ESRCH;
	if (!k)
		goto fail;
	rc = -EMEDIUMTYPE;
	if (object[0] == '[')
		goto fail;
	rc = -ENOMEM;
	if (!(a = calloc(1, sizeof(*a))) || !(a->function = strdup(fn)) ||
	    !(a->object = strdup(object)))
		goto fail;
	a->self = self;
	if ((rc = symbol_range(a, hot, symbol, err, errlen)) < 0 ||
	    (rc = disassemble(a, err, errlen)) < 0 || (rc = attribute(p, a, e, k, object)) < 0 ||
	    (rc = every_line ? sources(a) : recorded_sources(p, a, e, k, object)) < 0)
		goto fail;
	free(e);
	*ret = a;
	return 0;
fail:
	pmc_annotation_free(a);
	free(e);
	return rc;
}

int pmc_profile_annotate(const struct pmc_profile *p, const char *fn, struct pmc_annotation **ret,
			 char *err, size_t errlen)
{
	return annotate(p, fn, true, ret, err, errlen);
}

void pmc_annotations_free(struct pmc_annotation **a, size_t n)
{
	for (size_t i = 0; a && i < n; i++)
		pmc_annotation_free(a[i]);
	free(a);
}

int pmc_profile_annotate_hot(const struct pmc_profile *p, double min_share, size_t max,
			     struct pmc_annotation ***ret, size_t *ret_n)
{
	struct pmc_annotation **v = NULL;
	struct pmc_profile_fn *fns = NULL;
	double total = (double)pmc_profile_total(p);
	size_t nf = 0, n = 0;
	int rc = 0;

	*ret = NULL;
	*ret_n = 0;
	if (!pmc_profile_lines(p) || !total || !max || !pmc_disasm_available())
		return 0;
	if ((rc = pmc_profile_functions(p, &fns, &nf)) < 0)
		return rc;
	if (!(v = calloc(max, sizeof(*v)))) {
		rc = -ENOMEM;
		goto out;
	}
	/* By self weight, heaviest first: the first one under the share ends the list. */
	for (size_t i = 0; i < nf && n < max; i++) {
		if (100.0 * (double)fns[i].self / total < min_share)
			break;
		rc = annotate(p, fns[i].name, false, &v[n], NULL, 0);
		if (rc == -ENOMEM)
			goto out;
		n += rc == 0;
	}
	rc = 0;
	*ret = n ? v : NULL;
	*ret_n = n;
	if (n)
		v = NULL;
out:
	pmc_annotations_free(v, n);
	pmc_profile_functions_free(fns, nf);
	return rc;
}
