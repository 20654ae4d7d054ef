/* Two hashes of a buffer at a few sizes: FNV-1a, a byte at a time, against a 64-bit
 * multiply-xorshift over 8-byte words. bytes/s is the figure to compare. */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h;
}

/* Each word is mixed into the state with a multiply and a xorshift (the multipliers of
 * SplitMix64's finalizer); a tail shorter than a word is folded in a byte at a time. */
static uint64_t mix64(const unsigned char *p, size_t n)
{
	uint64_t h = n;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, sizeof(w));
		h = (h ^ w) * 0xbf58476d1ce4e5b9u;
		h ^= h >> 31;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x94d049bb133111ebu;
	return h ^ (h >> 29);
}

/* Untimed: n bytes of a pseudo-random pattern. */
static void fill(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);
	unsigned char *p = malloc(n);

	for (size_t i = 0; p && i < n; i++)
		p[i] = (unsigned char)(i * 2654435761u >> 24);
	pmc_set_user_data(s, p);
}

static void drain(struct pmc_state *s)
{
	free(pmc_user_data(s));
}

static void hash_fnv1a(struct pmc_state *s)
{
	const unsigned char *p = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!p) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_bytes_per_iter(s, n);
	while (pmc_loop(s)) {
		uint64_t h = fnv1a(p, n);

		/* Keeps h, and its memory clobber makes every iteration hash again. */
		pmc_do_not_optimize(h);
	}
}
PMC_BENCHMARK_OPTS(hash_fnv1a, .args = {"16..65536*16"}, .setup = fill, .teardown = drain);

static void hash_mix64(struct pmc_state *s)
{
	const unsigned char *p = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!p) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_bytes_per_iter(s, n);
	while (pmc_loop(s)) {
		uint64_t h = mix64(p, n);

		pmc_do_not_optimize(h);
	}
}
PMC_BENCHMARK_OPTS(hash_mix64, .args = {"16..65536*16"}, .setup = fill, .teardown = drain);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}
