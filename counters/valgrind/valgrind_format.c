/* The one reader of valgrind's output files (counters/valgrind/valgrind_format.h). */
#include "counters/valgrind/valgrind_format.h"
#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One table of compressed names: key ("(id)", or the name itself when the file does not
 * compress it) -> index into keys and names. */
struct names {
	struct pmc_hashmap ids;
	char **keys, **names;
	size_t n;
};

struct pmc_vgf_reader {
	FILE *f;
	char *path;
	char *line;
	size_t cap;
	unsigned number;
	bool newline; /* the last line read ended with one */
	char *err;
	size_t errlen;
	struct names fn, ob;
};

int pmc_vgf_open(const char *path, char *err, size_t errlen, struct pmc_vgf_reader **ret)
{
	struct pmc_vgf_reader *r;
	int e;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = strdup(path);
	if (!r->path) {
		free(r);
		return -ENOMEM;
	}
	r->f = fopen(path, "re");
	if (!r->f) {
		e = -errno;
		pmc_err_set(err, errlen, "%s: cannot open: %s", path, strerror(-e));
		pmc_vgf_close(r);
		return e;
	}
	r->newline = true;
	r->err = err;
	r->errlen = errlen;
	*ret = r;
	return 0;
}

/* "key: value" with a key of letters, digits and '_' that starts with a letter; or
 * "key=value". */
static void classify(struct pmc_vgf_line *l)
{
	const char *p = l->text;
	int c = (unsigned char)p[0];

	l->kind = PMC_VGF_OTHER;
	if (isdigit(c) || c == '+' || c == '-' || c == '*') {
		l->kind = PMC_VGF_COST;
		return;
	}
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == l->text)
		return;
	if (*p == ':' && isalpha(c))
		l->kind = PMC_VGF_HEADER;
	else if (*p == '=')
		l->kind = PMC_VGF_SPEC;
	else
		return;
	l->key = l->text;
	l->keylen = (size_t)(p - l->text);
	l->value = p + 1;
}

int pmc_vgf_next(struct pmc_vgf_reader *r, struct pmc_vgf_line *ret)
{
	ssize_t len;

	for (;;) {
		len = getline(&r->line, &r->cap, r->f);
		if (len <= 0)
			break;
		r->number++;
		r->newline = r->line[len - 1] == '\n';
		if (r->newline)
			r->line[--len] = '\0';
		if (len > 0 && r->line[len - 1] == '\r')
			r->line[--len] = '\0';
		if (r->line[0] == '\0' || r->line[0] == '#')
			continue;
		*ret = (struct pmc_vgf_line){.text = r->line, .cut = !r->newline};
		classify(ret);
		return 1;
	}
	if (ferror(r->f)) {
		pmc_err_set(r->err, r->errlen, "%s: read error", r->path);
		return -EIO;
	}
	return 0;
}

bool pmc_vgf_is(const struct pmc_vgf_line *l, enum pmc_vgf_kind kind, const char *key)
{
	return l->kind == kind && strlen(key) == l->keylen && memcmp(l->key, key, l->keylen) == 0;
}

unsigned pmc_vgf_line_number(const struct pmc_vgf_reader *r)
{
	return r->number;
}

int pmc_vgf_finish(struct pmc_vgf_reader *r)
{
	if (r->number == 0) {
		pmc_err_set(r->err, r->errlen, "%s: empty file", r->path);
		return -EINVAL;
	}
	if (!r->newline) {
		pmc_err_set(r->err, r->errlen, "%s:%u: truncated: the last line is incomplete",
			    r->path, r->number);
		return -EINVAL;
	}
	return 0;
}

int pmc_vgf_bad(struct pmc_vgf_reader *r, const char *what, const char *text)
{
	char q[PMC_QUOTE_SIZE(80)];

	pmc_err_set(r->err, r->errlen, "%s:%u: %s: \"%s\"; is it callgrind's output?", r->path,
		    r->number, what, pmc_quote(q, sizeof(q), text));
	return -EINVAL;
}

/* "(id) name", "(id)" or "name". Returns 0 with the key ("(id)" or the name) and the name
 * (NULL for a bare reference), or -EINVAL. */
static int split_name(struct pmc_vgf_reader *r, const char *s, const char **key, size_t *keylen,
		      const char **name)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '(' && isdigit((unsigned char)s[1])) {
		const char *p = s + 1;

		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ')')
			return pmc_vgf_bad(r, "a compressed name without its ')'", s);
		*key = s;
		*keylen = (size_t)(p + 1 - s);
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		*name = *p ? p : NULL;
		return 0;
	}
	if (!*s)
		return pmc_vgf_bad(r, "an empty name", s);
	*key = *name = s;
	*keylen = strlen(s);
	return 0;
}

/* Adds key, which the table owns from now on (even on failure), and a copy of name, as
 * entry *ret. */
static int names_add(struct names *t, char *key, const char *name, size_t *ret)
{
	char *copy = strdup(name);

	if (!copy || pmc_grow(&t->keys, t->n, sizeof(*t->keys)) < 0 ||
	    pmc_grow(&t->names, t->n, sizeof(*t->names)) < 0) {
		free(copy);
		free(key);
		return -ENOMEM;
	}
	t->keys[t->n] = key;
	t->names[t->n] = copy;
	*ret = t->n++;
	return pmc_hashmap_put(&t->ids, key, *ret);
}

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->keys[i]);
		free(t->names[i]);
	}
	free(t->keys);
	free(t->names);
	pmc_hashmap_free(&t->ids);
}

int pmc_vgf_name(struct pmc_vgf_reader *r, enum pmc_vgf_names table, const char *value,
		 size_t *ret_index, const char **ret_name)
{
	struct names *t = table == PMC_VGF_FN ? &r->fn : &r->ob;
	const char *key, *name;
	size_t keylen, idx;
	char *k;
	int e;

	e = split_name(r, value, &key, &keylen, &name);
	if (e < 0 || table == PMC_VGF_FL)
		return e;
	k = strndup(key, keylen);
	if (!k)
		return -ENOMEM;
	if (pmc_hashmap_get(&t->ids, k, &idx) == 0) {
		free(k);
		/* A redefinition must not change the name: costs already read are its. */
		if (name && strcmp(name, t->names[idx]) != 0)
			return pmc_vgf_bad(r, "a compressed name defined twice", value);
	} else if (!name) {
		free(k);
		return pmc_vgf_bad(r, "a compressed name used before its definition", value);
	} else if ((e = names_add(t, k, name, &idx)) < 0) {
		return e;
	}
	if (ret_index)
		*ret_index = idx;
	if (ret_name)
		*ret_name = t->names[idx];
	return 0;
}

/* A subposition (grammar: Number | "+" Number | "-" Number | "*", where Number is decimal
 * or "0x" hex). Only its form is checked: the readers sum costs per function and never
 * need the line or the address. Returns 0 or -EINVAL. */
static int subposition(const char *tok, size_t len)
{
	size_t i = 0;
	bool hex = false;

	if (len == 1 && tok[0] == '*')
		return 0;
	if (tok[0] == '+' || tok[0] == '-')
		i = 1;
	if (len >= i + 2 && tok[i] == '0' && (tok[i + 1] == 'x' || tok[i + 1] == 'X')) {
		hex = true;
		i += 2;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++)
		if (hex ? !isxdigit((unsigned char)tok[i]) : !isdigit((unsigned char)tok[i]))
			return -EINVAL;
	return 0;
}

int pmc_vgf_cost_line(struct pmc_vgf_reader *r, const char *s, size_t npos, size_t ncolumns,
		      long col, uint64_t *ret)
{
	const char *tok, *line = s;
	size_t len, i = 0;
	uint64_t v = 0, mine = 0;

	while ((tok = pmc_vgf_token(&s, &len))) {
		if (i < npos) {
			if (subposition(tok, len) < 0)
				return pmc_vgf_bad(r, "not a position", line);
		} else {
			int e = pmc_vgf_count(tok, len, &v);

			if (e == -EOVERFLOW) {
				pmc_err_set(r->err, r->errlen, "%s:%u: a cost above 2^64 - 1",
					    r->path, r->number);
				return e;
			}
			if (e < 0)
				return pmc_vgf_bad(r, "not a cost", line);
			if (i - npos >= ncolumns)
				return pmc_vgf_bad(r, "more costs than events", line);
			if ((long)(i - npos) == col)
				mine = v;
		}
		i++;
	}
	if (i < npos)
		return pmc_vgf_bad(r, "a cost line without its position", line);
	*ret = mine;
	return 0;
}

void pmc_vgf_close(struct pmc_vgf_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->line);
	free(r->path);
	names_free(&r->fn);
	names_free(&r->ob);
	free(r);
}

bool pmc_vgf_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *pmc_vgf_token(const char **s, size_t *ret_len)
{
	const char *p = *s, *start;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	*ret_len = (size_t)(p - start);
	*s = p;
	return start;
}

int pmc_vgf_count(const char *tok, size_t len, uint64_t *ret)
{
	uint64_t v = 0;
	bool over = false;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)tok[i]))
			return -EINVAL;
		over = over || __builtin_mul_overflow(v, (uint64_t)10, &v) ||
		       __builtin_add_overflow(v, (uint64_t)(tok[i] - '0'), &v);
	}
	if (over)
		return -EOVERFLOW;
	*ret = v;
	return 0;
}
