/* Bodies of a known size in every loop form of the C API, for the valgrind backend's exact
 * counts (tests/e2e/t_microbench.sh): 1, 2 and 10 instructions (nops; the clobber keeps the
 * while loop's count in memory, as any body that clobbers memory does), and the README's
 * LCG (a multiply and an add), each written as `while (pmc_loop(s))` and as `PMC_LOOP(s)`.
 * Each form's loop costs its own bookkeeping; what is left per operation must be the
 * body's, the same in both. tests/install/header.cpp has the C++ range loop's. */
#include <pmcbench.h>
#include <stdint.h>

#define NOP1 __asm__ volatile("nop" ::: "memory")
#define NOP2                                                                                       \
	NOP1;                                                                                      \
	NOP1
#define NOP10                                                                                      \
	NOP2;                                                                                      \
	NOP2;                                                                                      \
	NOP2;                                                                                      \
	NOP2;                                                                                      \
	NOP2

#define FORMS(name, body)                                                                          \
	static void name##_while(struct pmc_state *s)                                              \
	{                                                                                          \
		while (pmc_loop(s)) {                                                              \
			body;                                                                      \
		}                                                                                  \
	}                                                                                          \
	PMC_BENCHMARK(name##_while);                                                               \
	static void name##_local(struct pmc_state *s)                                              \
	{                                                                                          \
		PMC_LOOP(s)                                                                        \
		{                                                                                  \
			body;                                                                      \
		}                                                                                  \
	}                                                                                          \
	PMC_BENCHMARK(name##_local)

FORMS(nop1, NOP1);
FORMS(nop2, NOP2);
FORMS(nop10, NOP10);

static void lcg_while(struct pmc_state *s)
{
	uint64_t x = 1;

	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(lcg_while);

static void lcg_local(struct pmc_state *s)
{
	uint64_t x = 1;

	PMC_LOOP(s)
	{
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(lcg_local);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}
