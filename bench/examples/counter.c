/* A counter incremented by several threads at once (docs/microbench.md, "Threads"), as
 * Google Benchmark's ->Threads(n): each count of .threads is a benchmark of its own,
 * name/threads:N, whose function runs on N threads with a state each, their loops
 * started together. wall-time/op is a thread's time per increment (Google Benchmark's
 * Time), items/s the increments per second of all threads together, and the counter
 * "increments" (per operation over all threads) checks that none was lost.
 *
 * - shared: one atomic counter for all threads, whose cache line moves between cores;
 * - local: a counter per thread, each on its own cache line, summed at the end. */
#include <pmcbench.h>
#include <stdatomic.h>
#include <stdint.h>

static _Atomic uint64_t shared_count;

static void shared(struct pmc_state *s)
{
	uint64_t n = 0;

	pmc_set_items_per_iter(s, 1);
	while (pmc_loop(s)) {
		atomic_fetch_add_explicit(&shared_count, 1, memory_order_relaxed);
		n++;
	}
	pmc_set_counter(s, "increments", (double)n, PMC_COUNTER_PER_OP);
}
PMC_BENCHMARK_OPTS(shared, .threads = "1,2,4");

/* Each thread's counter on a cache line of its own. */
static struct {
	_Alignas(64) _Atomic uint64_t v;
} local_count[64];

static void local(struct pmc_state *s)
{
	unsigned i = pmc_thread_index(s) % 64;
	uint64_t n = 0;

	pmc_set_items_per_iter(s, 1);
	while (pmc_loop(s)) {
		atomic_fetch_add_explicit(&local_count[i].v, 1, memory_order_relaxed);
		n++;
	}
	pmc_set_counter(s, "increments", (double)n, PMC_COUNTER_PER_OP);
}
PMC_BENCHMARK_OPTS(local, .threads = "1,2,4");

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}
