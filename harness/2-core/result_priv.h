/* Private to the result model and its codecs (harness/3-formats/): building a result in
 * place, as a loader does, without going through pmc_result_add_benchmark(). */
#pragma once

#include <stddef.h>

struct pmc_benchmark;
struct pmc_result;

/* An empty result with its name index in *ret. Returns 0 or -ENOMEM. */
int pmc_result_alloc(struct pmc_result **ret);
/* Makes room for one more benchmark at r->benchmarks[r->nbench]. Returns 0 or -ENOMEM. */
int pmc_result_bench_reserve(struct pmc_result *r);
/* Takes array (cap entries, malloc'd) as r's benchmark array. Returns 0. */
int pmc_result_bench_adopt(struct pmc_result *r, struct pmc_benchmark *array, size_t cap);
/* Indexes the benchmarks added in place since the last call. Returns 0, -ENOMEM, or
 * -EEXIST with *ret_dup set to the earlier of two benchmarks with the same name. */
int pmc_result_index(struct pmc_result *r, size_t *ret_dup);
