#include "harness/profile/callgrind.h"
#include <errno.h>
const char *const *pmc_callgrind_profile_args(void) { static const char *const a[] = {NULL}; return a; }
int pmc_callgrind_profile(const char *const *files, size_t n, const char *event, const char *name, struct pmc_profile **ret, char *err, size_t errlen) { return -ENOSYS; }
