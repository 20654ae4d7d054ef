/* The result model: a result holds benchmarks, a benchmark holds runs and metrics, a
 * metric holds one sample per run, and the file format is schema pmcbench-result/1
 * (docs/result-schema.md, docs/api.md). Build one, save it, load it, iterate over it.
 * A value that was not measured never reads as a number: its getter returns -ENODATA.
 * Plain C11. */
#ifndef PMCBENCH_RESULT_H
#define PMCBENCH_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmcbench/common.h"
#include "pmcbench/counters.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmc_result;
struct pmc_benchmark;
struct pmc_metric;

/* ---- Building ---- */

/* A new, empty result of a backend ("perf", "valgrind") in *ret, stamped with this
 * library's version and the current time; free it with pmc_result_free(). Returns 0,
 * -EINVAL for an empty backend, or -ENOMEM. */
PMC_API int pmc_result_new(const char *backend, struct pmc_result **ret);

/* Frees r with everything it holds; NULL is fine. */
PMC_API void pmc_result_free(struct pmc_result *r);

/* Sets or replaces an environment entry (key and value are copied). Returns 0, -EINVAL
 * or -ENOMEM. */
PMC_API int pmc_result_set_env(struct pmc_result *r, const char *key, const char *value);

/* Adds a benchmark (name and command copied; command may be NULL) and puts it, owned by
 * r, in *ret. Returns 0, -EEXIST when the name is taken, -EINVAL for an empty name, or
 * -ENOMEM. Benchmark and metric pointers obtained earlier from r may move. */
PMC_API int pmc_result_add_benchmark(struct pmc_result *r, const char *name, const char *command,
				     struct pmc_benchmark **ret);

/* Records one run of b: its exit code (-1 when killed), the signal that killed it (0 if
 * none), whether it timed out. Returns 0, -ENOMEM, or -EINVAL when b was skipped. */
PMC_API int pmc_benchmark_record_run(struct pmc_benchmark *b, int exit_code, int term_signal,
				     bool timed_out);

/* Finds b's metric id, or adds it with the unit and direction of the metric registry,
 * and puts it (owned by b) in *ret. Returns 0, -EINVAL (also when b was skipped) or
 * -ENOMEM. Metric pointers obtained earlier from b may move when one is added. */
PMC_API int pmc_benchmark_metric(struct pmc_benchmark *b, const char *id, struct pmc_metric **ret);

/* Appends a measured sample (one per run). Returns 0, -ENOMEM, or -EINVAL for a NaN or
 * infinite value, or for a metric whose samples carry counter readings. */
PMC_API int pmc_metric_add_value(struct pmc_metric *m, double value);

/* Appends a sample that was not measured. Returns 0, -ENOMEM, or -EINVAL for a metric
 * whose samples carry counter readings. */
PMC_API int pmc_metric_add_missing(struct pmc_metric *m);

/* Appends a counter reading as pmc_counters_read() gives it (status, raw value, time
 * enabled and running). The sample is the value scaled by enabled / running, or not
 * measured when the status holds no number; the raw reading is kept. Returns 0, -ENOMEM,
 * or -EINVAL for an unknown status, a scaled reading that never ran, or a metric whose
 * earlier samples carry no reading. */
PMC_API int pmc_metric_add_reading(struct pmc_metric *m, const struct pmc_reading *reading);

/* Marks b as skipped (it could not run here: "no AVX2 on this CPU"), with the reason
 * (copied; NULL or "" when there is none). A skipped benchmark has no runs and no
 * metrics, and compare and gate do not compare it. Returns 0, -EINVAL when b already
 * has runs or metrics, or -ENOMEM. */
PMC_API int pmc_benchmark_set_skipped(struct pmc_benchmark *b, const char *reason);

/* ---- Files ---- */

/* Loads and validates a result file; *ret is the caller's to free. Returns 0, -EINVAL for
 * bad input or -errno for I/O, with one line in err naming the file, the place and the
 * fix. */
PMC_API int pmc_result_load(const char *path, struct pmc_result **ret, char *err, size_t errlen);

/* Writes r to path atomically (a temporary file in the same directory, fsync, rename,
 * fsync of the directory): on failure the old file is left as it was. A result that
 * would not load back is refused with -EINVAL. Returns 0 or -errno, with one line in
 * err. */
PMC_API int pmc_result_save(const struct pmc_result *r, const char *path, char *err, size_t errlen);

/* ---- Reading ---- */

/* The backend ("perf", "valgrind"); owned by r. */
PMC_API const char *pmc_result_backend(const struct pmc_result *r);

/* The value of environment entry key (owned by r), or NULL when absent. */
PMC_API const char *pmc_result_get_env(const struct pmc_result *r, const char *key);

/* The number of environment entries, and the i-th one's key and value (owned by r).
 * pmc_result_env_at returns 0, or -ERANGE when i is out of range. */
PMC_API size_t pmc_result_env_count(const struct pmc_result *r);
PMC_API int pmc_result_env_at(const struct pmc_result *r, size_t i, const char **ret_key,
			      const char **ret_value);

/* The number of benchmarks, and the i-th one in file order (owned by r), or NULL when i
 * is out of range. */
PMC_API size_t pmc_result_benchmark_count(const struct pmc_result *r);
PMC_API struct pmc_benchmark *pmc_result_benchmark_at(const struct pmc_result *r, size_t i);

/* The benchmark called name (owned by r), found through a hash index, or NULL. */
PMC_API struct pmc_benchmark *pmc_result_find_benchmark(const struct pmc_result *r,
							const char *name);

/* A benchmark's name, and its command as given by the user or NULL; owned by b. */
PMC_API const char *pmc_benchmark_name(const struct pmc_benchmark *b);
PMC_API const char *pmc_benchmark_command(const struct pmc_benchmark *b);

/* Why b was skipped ("" when no reason was given; owned by b), or NULL when it ran. */
PMC_API const char *pmc_benchmark_skipped(const struct pmc_benchmark *b);

/* The number of runs, and how run i ended (any ret_ pointer may be NULL). Returns 0, or
 * -ERANGE when i is out of range. */
PMC_API size_t pmc_benchmark_run_count(const struct pmc_benchmark *b);
PMC_API int pmc_benchmark_run_at(const struct pmc_benchmark *b, size_t i, int *ret_exit_code,
				 int *ret_term_signal, bool *ret_timed_out);

/* The number of metrics, the i-th one in file order (owned by b) or NULL, and the one
 * with id or NULL. */
PMC_API size_t pmc_benchmark_metric_count(const struct pmc_benchmark *b);
PMC_API struct pmc_metric *pmc_benchmark_metric_at(const struct pmc_benchmark *b, size_t i);
PMC_API struct pmc_metric *pmc_benchmark_find_metric(const struct pmc_benchmark *b, const char *id);

/* A metric's id and unit ("count", "ns", "bytes", "ratio", ...); owned by m. */
PMC_API const char *pmc_metric_id(const struct pmc_metric *m);
PMC_API const char *pmc_metric_unit(const struct pmc_metric *m);

/* The number of samples (one per run), and sample i: 0 with the value in *ret,
 * -ENODATA when it was not measured (*ret untouched), -ERANGE when i is out of range. */
PMC_API size_t pmc_metric_sample_count(const struct pmc_metric *m);
PMC_API int pmc_metric_sample_at(const struct pmc_metric *m, size_t i, double *ret);

/* The status of sample i in *ret (pmc_status_name() names it): 0, -ENODATA for a metric
 * that is not a counter (wall-time, derived ones), -ERANGE when i is out of range. */
PMC_API int pmc_metric_status(const struct pmc_metric *m, size_t i, enum pmc_status *ret);

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_RESULT_H */
