/* pmcbench public API.
 *
 * This header is what programs compile against. Today it carries the version; the
 * microbenchmark library (registered C benchmark functions measured in-process, with
 * per-operation counters) will declare its API here. Plain C11, usable from C++. */
#ifndef PMCBENCH_H
#define PMCBENCH_H

#ifdef __cplusplus
extern "C" {
#endif

#define PMCBENCH_VERSION_MAJOR 0
#define PMCBENCH_VERSION_MINOR 1
#define PMCBENCH_VERSION_PATCH 0

/* Result files this version writes and reads (docs/result-schema.md). */
#define PMCBENCH_RESULT_SCHEMA "pmcbench-result/1"

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_H */
