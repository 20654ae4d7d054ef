/* libFuzzer target: a history row's samples, the text "v v null v" the SQLite and
 * PostgreSQL stores keep (harness/3-history/store_query.c, pmc_hist_parse_samples; the
 * baseline's reader takes the same samples one by one, pmc_hist_parse_sample). History
 * databases travel as CI caches and artifacts: the text may be anything. Both readers
 * must agree, and a text they take must hold as many samples as it has words. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "history/store_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

/* Words: runs of bytes that are not spaces. */
static size_t words(const char *s)
{
	size_t w = 0;

	for (s += strspn(s, " "); *s; s += strspn(s, " ")) {
		w++;
		s += strcspn(s, " ");
	}
	return w;
}

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *text = malloc(n + 1);
	double *v = NULL;
	size_t nv = 0, k = 0;
	int r, r1 = 0;

	if (!text)
		return 0;
	memcpy(text, data, n);
	text[n] = '\0'; /* the engines hand a row's text over as a C string */
	r = pmc_hist_parse_samples(text, &v, &nv);
	/* The baseline's loop (store_baseline.c). */
	for (const char *s = text + strspn(text, " "); *s && r1 == 0; s += strspn(s, " ")) {
		double x;

		r1 = pmc_hist_parse_sample(&s, &x);
		if (r1 == 0 && r == 0 && (k >= nv || !same(x, v[k])))
			abort();
		k++;
	}
	if (r == -ENOMEM)
		goto out;
	if ((r == 0) != (r1 == 0) || (r == 0 && (nv != k || nv != words(text))))
		abort();
out:
	if (r == 0)
		free(v);
	free(text);
	return 0;
}
