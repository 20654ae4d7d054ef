/* Checking and reading the size-carrying options structs of the API (docs/api.md,
 * "Conventions"), the one way every function does it, after libbpf's OPTS_VALID and
 * OPTS_GET. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmcbench/common.h"

/* True when opts (which may be NULL) can be used by code that knows its struct up to
 * byte `known` (PMC_OPTS_END: the end of its last field, not its sizeof, so that the
 * tail padding is checked too): sz covers at least the sz field itself, and every byte
 * from `known` up to sz is zero. */
bool pmc_opts_valid(const void *opts, size_t known);

/* The field's value when the caller's struct is large enough to hold it, else dflt.
 * opts may be NULL. */
#define PMC_OPTS_HAS(opts, field)                                                                  \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
#define PMC_OPTS_GET(opts, field, dflt) (PMC_OPTS_HAS(opts, field) ? (opts)->field : (dflt))

/* pmc_opts_valid for struct TYPE as this code was built with it (TYPE without `struct`,
 * as PMC_OPTS takes it). It also fails to compile when TYPE##__last_field leaves more
 * than padding after it: a field added after the one it names, which this check would
 * wrongly demand be zero. */
#define PMC_OPTS_VALID(opts, TYPE)                                                                 \
	((void)sizeof(struct {                                                                     \
		 _Static_assert(sizeof(struct TYPE) - PMC_OPTS_END(TYPE) < _Alignof(struct TYPE),  \
				#TYPE "__last_field must name its last field");                    \
		 int unused;                                                                       \
	 }),                                                                                       \
	 pmc_opts_valid((opts), PMC_OPTS_END(TYPE)))
