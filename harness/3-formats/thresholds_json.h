/* The thresholds file (docs/compare.md, "Thresholds file"), schema pmcbench-thresholds/1. */
#pragma once

#include <stddef.h>

/* pmc_thresholds_load() is public: pmcbench/compare.h. */
#include "pmcbench/compare.h"
