/* A shared object with known functions for tests/test_maps.c, which dlopens it and
 * symbolizes their addresses through its mapping. */
int pmc_sym_lib_alpha(int n);
int pmc_sym_lib_beta(int n);

__attribute__((noinline)) int pmc_sym_lib_alpha(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i * 7 + 2;
	return acc;
}

__attribute__((noinline)) int pmc_sym_lib_beta(int n)
{
	volatile int acc = 3;

	for (int i = 0; i < n; i++)
		acc = acc * 3 + i;
	return acc;
}
