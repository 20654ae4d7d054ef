/* Event status names: the words results, reports and `pmcbench list` use. */
#include <errno.h>
#include <string.h>

#include "counters/reading.h"

/* One table keeps the enum, the word and "holds a number" in step. */
#define PMC_STATUS_MAP(X)                                                                          \
	X(PMC_STATUS_COUNTED, "counted", true)                                                     \
	X(PMC_STATUS_SCALED, "scaled", true)                                                       \
	X(PMC_STATUS_NOT_COUNTED, "not-counted", false)                                            \
	X(PMC_STATUS_UNSUPPORTED, "unsupported", false)                                            \
	X(PMC_STATUS_DENIED, "denied", false)                                                      \
	X(PMC_STATUS_EXACT, "exact", true)

/* clang-format off */
static const struct {
	enum pmc_status status;
	const char *name;
	bool has_value;
} status_table[] = {
#define X(e, s, v) { e, s, v },
	PMC_STATUS_MAP(X)
#undef X
};
/* clang-format on */

#define STATUS_COUNT (sizeof(status_table) / sizeof(status_table[0]))

const char *pmc_status_name(enum pmc_status status)
{
	for (size_t i = 0; i < STATUS_COUNT; i++)
		if (status_table[i].status == status)
			return status_table[i].name;
	return "unknown";
}

int pmc_status_from_name(const char *name, enum pmc_status *ret)
{
	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < STATUS_COUNT; i++) {
		if (strcmp(status_table[i].name, name) == 0) {
			*ret = status_table[i].status;
			return 0;
		}
	}
	return -EINVAL;
}

bool pmc_status_has_value(enum pmc_status status)
{
	for (size_t i = 0; i < STATUS_COUNT; i++)
		if (status_table[i].status == status)
			return status_table[i].has_value;
	return false;
}
