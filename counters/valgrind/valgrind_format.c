/* The lexical rules of valgrind's output files (counters/valgrind/valgrind_format.h). */
#include "counters/valgrind/valgrind_format.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

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

int pmc_vgf_subposition(const char *tok, size_t len)
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
