#include "reporters/flamegraph.h"
#include <errno.h>
int pmc_flamegraph_write(FILE *out, const struct pmc_flame_stack *stacks, size_t n, const struct pmc_flame_opts *o) { fprintf(out, "<svg/>\n"); return 0; }
