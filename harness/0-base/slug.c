/* File names from names of the user's (slug.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/slug.h"

#define SUFFIX_LEN 9 /* '_' and 8 hex digits */

static bool word_byte(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

static bool hex_digit(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

/* Whether s ends as a suffix does: '_' and 8 lowercase hex digits. */
static bool ends_like_suffix(const char *s, size_t n)
{
	if (n < SUFFIX_LEN || s[n - SUFFIX_LEN] != '_')
		return false;
	for (size_t i = n - SUFFIX_LEN + 1; i < n; i++)
		if (!hex_digit(s[i]))
			return false;
	return true;
}

/* FNV-1a (64 bits) of the whole name, folded to 32. */
static uint32_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3u;
	}
	return (uint32_t)(h ^ (h >> 32));
}

char *pmc_slug(const char *name, char buf[PMC_SLUG_SIZE])
{
	size_t k = 0, i = 0, n = strlen(name);
	bool cut = false;

	while (i < n) {
		size_t run = i;
		char sep;

		if (word_byte((unsigned char)name[i])) {
			if (k == PMC_SLUG_MAX) {
				cut = true;
				break;
			}
			buf[k++] = name[i++];
			continue;
		}
		/* A run of anything else: one '.' or one '-' stays as it is, any other run
		 * becomes one '-' (so ".." never survives). */
		while (i < n && !word_byte((unsigned char)name[i]))
			i++;
		sep = i - run == 1 && (name[run] == '.' || name[run] == '-') ? name[run] : '-';
		/* Separators at either end are trimmed: no leading '.' or '-'. */
		if (k == 0 || i == n)
			continue;
		if (k + 1 >= PMC_SLUG_MAX) {
			cut = true;
			break;
		}
		buf[k++] = sep;
	}
	buf[k] = '\0';
	if (!cut && k > 0 && k == n && memcmp(buf, name, n) == 0 && !ends_like_suffix(name, n))
		return buf;
	snprintf(buf + k, PMC_SLUG_SIZE - k, "_%08x", (unsigned)name_hash(name));
	return buf;
}
