/* Checking and reading the size-carrying options structs of the API (docs/api.md,
 * "Conventions"), the one way every function does it, after libbpf's OPTS_VALID and
 * OPTS_GET. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* True when opts (which may be NULL) can be used by code that knows `known` bytes of
 * its struct: sz covers at least the sz field itself, and every byte beyond `known`
 * that a newer caller set is zero. */
bool pmc_opts_valid(const void *opts, size_t known);

/* The field's value when the caller's struct is large enough to hold it, else dflt.
 * opts may be NULL. */
#define PMC_OPTS_HAS(opts, field)                                                                  \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
#define PMC_OPTS_GET(opts, field, dflt) (PMC_OPTS_HAS(opts, field) ? (opts)->field : (dflt))
/* PMC_OPTS_VALID(opts, type): pmc_opts_valid for the struct this code was built with. */
#define PMC_OPTS_VALID(opts, type) pmc_opts_valid((opts), sizeof(type))
