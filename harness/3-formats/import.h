/* Results of other tools: Google Benchmark JSON, hyperfine --export-json, perf stat -x,
 * and -j, and Go's benchmark format, read into the model of harness/2-core/result.h so
 * that compare and gate take them beside pmcbench's own files (docs/import.md). The
 * format is told by the content, never by the file name. */
#pragma once

#include <stddef.h>

struct pmc_result;

enum pmc_import_format {
	PMC_IMPORT_PMCBENCH,	  /* pmcbench-result/1 (result_json.h) */
	PMC_IMPORT_GBENCH,	  /* Google Benchmark, --benchmark_format=json or --benchmark_out */
	PMC_IMPORT_HYPERFINE,	  /* hyperfine --export-json */
	PMC_IMPORT_PERF_STAT_CSV, /* perf stat -x, */
	PMC_IMPORT_PERF_STAT_JSON, /* perf stat -j */
	PMC_IMPORT_GO,		   /* Go's benchmark format (go test -bench) */
};

/* The environment key an imported result carries its source format in, with the value
 * pmc_import_format_id() gives ("google-benchmark", ...). pmcbench's own files have none. */
#define PMC_IMPORT_ENV_KEY "imported-from"

/* "pmcbench", "google-benchmark", "hyperfine", "perf-stat-csv", "perf-stat-json",
 * "go-bench". */
const char *pmc_import_format_id(enum pmc_import_format f);

/* The format the text of a file is in, from its content: pmcbench's JSON for any JSON
 * document that is not recognisably another tool's, and for text that is no format at all,
 * so that pmc_result_load() reports what is wrong with it. */
enum pmc_import_format pmc_import_sniff(const char *text, size_t len);

/* Loads a result file of any format above, told by its content, into *ret (the caller
 * frees it with pmc_result_free). Returns 0, -EINVAL for input it cannot trust (one line
 * in err naming the file, the place and the fix; a number it could not read is never
 * guessed), -ENOMEM, or -errno for I/O. Works on pipes. Reentrant: numbers are read in
 * the C locale whatever the caller's. */
int pmc_result_load_any(const char *path, struct pmc_result **ret, char *err, size_t errlen);

/* The importers, on the whole text of a file (text[len] is '\0'); name is the file's name
 * for messages. Each returns as pmc_result_load_any() does. */
int pmc_import_gbench(const char *name, const char *text, size_t len, struct pmc_result **ret,
		      char *err, size_t errlen);
int pmc_import_hyperfine(const char *name, const char *text, size_t len, struct pmc_result **ret,
			 char *err, size_t errlen);
int pmc_import_perf_stat_csv(const char *name, const char *text, size_t len,
			     struct pmc_result **ret, char *err, size_t errlen);
int pmc_import_perf_stat_json(const char *name, const char *text, size_t len,
			      struct pmc_result **ret, char *err, size_t errlen);
int pmc_import_go(const char *name, const char *text, size_t len, struct pmc_result **ret,
		  char *err, size_t errlen);
