/* buildlib.c's benchmarks as a benchmark program, built twice with it (WORK=1 and WORK=4,
 * tests/targets/meson.build), for `./w4 --against ./w1`: two builds of a program compared
 * round by round (tests/e2e/t_library.sh; docs/microbench.md, "Comparing two builds"). */
#include <pmcbench.h>

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}
