/* "Did you mean" (suggest.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/suggest.h"

size_t pmc_edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t rows[3][PMC_SUGGEST_LEN + 1], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > PMC_SUGGEST_LEN || lb > PMC_SUGGEST_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]),
			    cb = tolower((unsigned char)b[j - 1]);
			size_t v = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

size_t pmc_suggest_closeness(const char *typed, size_t len, const char *known)
{
	size_t d = pmc_edit_distance(typed, len, known, strlen(known));
	size_t limit = len <= 3 ? 1 : len <= 8 ? 2 : 3;

	if (len >= 3 && strncasecmp(known, typed, len) == 0 && d > 2)
		d = 2;
	if (d > limit || d >= len)
		return SIZE_MAX;
	return d;
}

void pmc_suggest_init(struct pmc_suggest *s, const char *typed, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->typed = typed;
	s->len = len;
}

void pmc_suggest_offer(struct pmc_suggest *s, const char *key, const char *display)
{
	size_t d = pmc_suggest_closeness(s->typed, s->len, key), at;

	if (d == SIZE_MAX || strlen(display) >= PMC_SUGGEST_NAME_MAX)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->names[i], display) == 0)
			return;
	for (at = 0; at < s->n && s->dist[at] <= d; at++)
		;
	if (at >= PMC_SUGGEST_MAX)
		return;
	if (s->n == PMC_SUGGEST_MAX)
		s->n--;
	memmove(&s->names[at + 1], &s->names[at], (s->n - at) * sizeof(s->names[0]));
	memmove(&s->dist[at + 1], &s->dist[at], (s->n - at) * sizeof(s->dist[0]));
	memcpy(s->names[at], display, strlen(display) + 1);
	s->dist[at] = d;
	s->n++;
}

size_t pmc_suggest_format(const struct pmc_suggest *s, char *buf, size_t size)
{
	size_t len;

	if (size == 0)
		return s->n;
	buf[0] = '\0';
	if (s->n == 0)
		return 0;
	len = (size_t)snprintf(buf, size, "did you mean");
	for (size_t i = 0; i < s->n && len < size; i++) {
		const char *sep = i == 0 ? " " : i + 1 == s->n ? " or " : ", ";

		len += (size_t)snprintf(buf + len, size - len, "%s'%s'", sep, s->names[i]);
	}
	if (len < size)
		snprintf(buf + len, size - len, "?");
	return s->n;
}

void pmc_suggest_append(const struct pmc_suggest *s, char *buf, size_t size, const char *fallback)
{
	size_t len = strnlen(buf, size);

	if (len + 1 >= size || (s->n == 0 && !fallback))
		return;
	len += (size_t)snprintf(buf + len, size - len, "; ");
	if (len >= size)
		return;
	if (s->n == 0)
		snprintf(buf + len, size - len, "%s", fallback);
	else
		pmc_suggest_format(s, buf + len, size - len);
}
