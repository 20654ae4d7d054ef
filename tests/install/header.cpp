// The public headers compile as C++ and their functions link with C linkage: a missing
// extern "C" would leave a mangled reference that the library does not define.
#include <pmcbench.h>

#include <cstdio>

int main()
{
	std::printf("libpmcbench %s from C++\n", pmc_version());
	return pmc_version()[0] != '\0' ? 0 : 1;
}
