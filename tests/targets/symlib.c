/* A shared object with known functions for tests/test_maps.c, which dlopens it and
 * symbolizes their addresses through its mapping. Exported (the build hides symbols by
 * default), so that dlsym finds them. */
int pmc_sym_lib_alpha(int n);
int pmc_sym_lib_beta(int n);

__attribute__((noinline, visibility("default"))) int pmc_sym_lib_alpha(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i * 7 + 2;
	return acc;
}

__attribute__((noinline, visibility("default"))) int pmc_sym_lib_beta(int n)
{
	volatile int acc = 3;

	for (int i = 0; i < n; i++)
		acc = acc * 3 + i;
	return acc;
}
