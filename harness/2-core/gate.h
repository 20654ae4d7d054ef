/* The gate decision: from a comparison to pass, regression, error or inconclusive, and
 * the reason (docs/compare.md, "Errors and exit status"). The public declarations are in
 * pmcbench/compare.h; the outcomes are the exit codes of `pmcbench gate`. */
#pragma once

#include "core/compare.h"
#include "pmcbench/compare.h"
