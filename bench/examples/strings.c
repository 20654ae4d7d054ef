/* Joining n words into one string, two ways, with the allocations of each operation
 * (docs/microbench.md, "Allocations"): the program links pmcbench-alloc, which adds
 * allocs/op and alloc-bytes/op to every benchmark without a line of code here, as Go's
 * -benchmem and Google Benchmark's memory manager do.
 *
 *	cc strings.c $(pkg-config --cflags --libs pmcbench-alloc)
 *
 * - join_each: a realloc per word, to the exact length so far (n reallocs);
 * - join_doubling: the capacity doubled when it runs out (about log2 of the length). */
#include <pmcbench.h>
#include <stdlib.h>
#include <string.h>

static const char word[] = "pmcbench ";
#define WORD_LEN (sizeof(word) - 1)

static void join_each(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);

	PMC_LOOP(s)
	{
		char *str = NULL;

		for (size_t i = 0; i < n; i++) {
			char *grown = realloc(str, (i + 1) * WORD_LEN + 1);

			if (!grown)
				break;
			str = grown;
			memcpy(str + i * WORD_LEN, word, WORD_LEN + 1);
		}
		pmc_do_not_optimize(str);
		free(str);
	}
}
PMC_BENCHMARK_OPTS(join_each, .args = {"16,256"}, .arg_names = {"words"});

static void join_doubling(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);

	PMC_LOOP(s)
	{
		size_t cap = 16, len = 0;
		char *str = malloc(cap);

		for (size_t i = 0; str && i < n; i++) {
			while (len + WORD_LEN + 1 > cap) {
				char *grown = realloc(str, cap * 2);

				if (!grown)
					break;
				str = grown;
				cap *= 2;
			}
			if (len + WORD_LEN + 1 > cap)
				break;
			memcpy(str + len, word, WORD_LEN + 1);
			len += WORD_LEN;
		}
		pmc_do_not_optimize(str);
		free(str);
	}
}
PMC_BENCHMARK_OPTS(join_doubling, .args = {"16,256"}, .arg_names = {"words"});

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}
