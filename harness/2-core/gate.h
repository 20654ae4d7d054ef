/* The gate decision: from a comparison to pass, regression, error or inconclusive, and
 * the reason (docs/compare.md, "Errors and exit status"). The public declarations are in
 * pmcbench/compare.h; the CLI maps each decision to its exit status. */
#pragma once

#include "core/compare.h"
#include "pmcbench/compare.h"
