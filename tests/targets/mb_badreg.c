/* A benchmark program with bad registrations beside good ones (tests/e2e/t_microbench.sh):
 * a definition without a function here, and the name 'twice' registered again in
 * mb_badreg2.c. Each is named by its file:line and skipped; the others run. */
#include <pmcbench.h>

static void good(struct pmc_state *s)
{
	while (pmc_loop(s))
		pmc_clobber_memory();
}
PMC_BENCHMARK(good);

static void twice(struct pmc_state *s)
{
	while (pmc_loop(s))
		pmc_clobber_memory();
}
PMC_BENCHMARK(twice);

/* What a registration with a NULL function looks like in the section. */
__attribute__((used, section(PMC_BENCH_SECTION),
	       aligned(sizeof(void *)))) static const struct pmc_bench_def nofn = {
    .sz = sizeof(struct pmc_bench_def),
    .name = "nofn",
    .fn = NULL,
    .file = __FILE__,
    .line = __LINE__};

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}
