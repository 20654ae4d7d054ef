/* The smallest program on libpmcbench: prints the library's version and checks that it
 * matches the headers it was built with. Build it against an installed pmcbench:
 *
 *	cc version.c $(pkg-config --cflags --libs pmcbench) -o version
 *
 * Exits 0 when the versions agree, 1 when the shared library is another version. */
#include <pmcbench.h>

#include <stdio.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define HEADER_VERSION                                                                             \
	STR(PMCBENCH_VERSION_MAJOR) "." STR(PMCBENCH_VERSION_MINOR) "." STR(PMCBENCH_VERSION_PATCH)

int main(void)
{
	const char *lib = pmc_version();

	printf("libpmcbench %s (headers %s, results %s)\n", lib, HEADER_VERSION,
	       PMCBENCH_RESULT_SCHEMA);
	if (strcmp(lib, HEADER_VERSION) != 0) {
		fprintf(stderr, "version: the library is %s but the headers are %s\n", lib,
			HEADER_VERSION);
		return 1;
	}
	return 0;
}
