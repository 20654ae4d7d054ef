/* pmcbench: counters, results, comparisons and reports as a C library (docs/api.md).
 * Plain C11, usable from C++. Link with `pkg-config --cflags --libs pmcbench`. */
#ifndef PMCBENCH_H
#define PMCBENCH_H

#include "pmcbench/common.h"
#include "pmcbench/metrics.h"
#include "pmcbench/result.h"
#include "pmcbench/counters.h"
#include "pmcbench/events.h"
#include "pmcbench/report.h"
#include "pmcbench/compare.h"
#include "pmcbench/microbench.h"
#include "pmcbench/session.h"

#endif /* PMCBENCH_H */
