/* A profile (docs/profile.md): where a run spent an event, as aggregated call stacks and
 * their weights, never raw samples. Sampled profiles come from perf_event_open
 * (record.c), exact ones from callgrind's output (callgrind.c); both are this one model,
 * saved and loaded as "pmcbench-profile/1" JSON (profile_json.c), and read by the text
 * report, the folded stacks, the flame graphs and the diff.
 *
 * A frame is a function of an object (an executable or shared object), or, when no
 * symbol covers the address, the object and the offset into it: the symbol is then NULL
 * and every view shows the object and the offset ("prog+0x1139"), never a guessed name. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PMC_PROFILE_SCHEMA "pmcbench-profile/1"

/* The largest offset of a frame: JSON readers (jansson) read integers up to 2^63-1, so a
 * profile never holds a larger one and every profile can be saved. */
#define PMC_PROFILE_OFFSET_MAX ((uint64_t)INT64_MAX)

/* The root frame under which folded stacks, flame graphs and call trees put every stack
 * whose call chain was cut: its callers are missing, and at the root it would pass for a
 * function that nothing called. No symbol is spelled this way; the pseudo-objects are
 * alike. */
#define PMC_PROFILE_TRUNCATED_FRAME "[truncated]"

enum pmc_profile_kind {
	PMC_PROFILE_SAMPLED = 0, /* weights are sample periods: estimates with sampling error */
	PMC_PROFILE_EXACT = 1,	 /* weights are simulated counts (callgrind): exact */
};

struct pmc_profile_frame {
	const char *symbol; /* NULL: no symbol covers the address */
	const char *object; /* path of the object, or "[kernel]", "[vdso]", "[anon]", "[unknown]" */
	uint64_t offset;    /* when symbol is NULL: the address relative to the object's ELF
			     * virtual addresses (file offset when it has none); else 0 */
};

struct pmc_profile_stack {
	const uint32_t *frames; /* frame ids, root first, leaf last */
	uint32_t depth;
	uint64_t weight;  /* sum of the periods (sampled) or the cost (exact) */
	uint64_t samples; /* samples aggregated here (exact: 0) */
	bool truncated;	  /* the call chain was cut (depth limit or broken frame chain) */
	uint32_t task;	  /* its task (pmc_profile_task), or PMC_PROFILE_NO_TASK: not kept */
};

/* A task a sampled profile's stacks came from: process, thread, and the thread's name
 * (comm) when the samples were taken. Exact profiles and older files keep none. */
#define PMC_PROFILE_NO_TASK UINT32_MAX
struct pmc_profile_task {
	uint32_t pid, tid;
	const char *comm; /* NULL: not known */
};

/* How a sampled profile's callers were found (docs/profile.md, "Call chains"). */
enum pmc_profile_call_graph {
	PMC_CALL_GRAPH_UNKNOWN = 0, /* exact profiles; files written before it was kept */
	PMC_CALL_GRAPH_NONE,	    /* the sampled function only (--no-callchain) */
	PMC_CALL_GRAPH_FP,	    /* the kernel's walk of frame pointers */
	PMC_CALL_GRAPH_DWARF,	    /* user stacks copied and unwound with the objects' CFI */
};

/* When a sampled recording took and lost its samples, per tenth of its span (from its
 * first record to its last), so that a loss says when it happened: bunched at the start
 * (the shares of what ran then are too low), or spread. The kernel's LOST record comes
 * when its ring has room again; the samples it counts are spread over the time since the
 * ring's previous record. Recorded by pmcbench; imported and older profiles have none
 * (span_ns 0). */
#define PMC_PROFILE_TENTHS 10
struct pmc_profile_timeline {
	uint64_t span_ns;
	uint64_t samples[PMC_PROFILE_TENTHS]; /* adds up to the profile's samples */
	uint64_t lost[PMC_PROFILE_TENTHS];    /* adds up to its lost samples */
};

/* What the profile is of and how it was taken. Strings are copied. */
struct pmc_profile_info {
	enum pmc_profile_kind kind;
	const char *event; /* "cpu-clock", "cycles", "Ir" ... */
	const char *unit;  /* unit of the weights: "ns", "events", "instructions" */
	const char *name;  /* the benchmark or command it profiles; may be NULL */
	uint64_t freq;	   /* sampled: samples per second asked of the kernel (within its
			    * perf_event_max_sample_rate); 0: a period was used */
	uint64_t samples;  /* sampled: samples taken (all of them, resolved or not) */
	uint64_t lost;	   /* sampled: samples the kernel dropped (never hidden) */
	/* sampled: the input did not say how many samples were lost (an import of perf
	 * script's output or of folded stacks): lost is 0 and means nothing; never shown
	 * as 0 */
	bool lost_unknown;
	uint64_t throttled;  /* sampled: times the kernel throttled sampling (no samples
			      * for the rest of a tick); absent from older files: 0 */
	uint64_t unresolved; /* frames without a symbol (counted per sample) */
	enum pmc_profile_call_graph call_graph;
	uint32_t stack_size; /* DWARF: bytes of user stack copied per sample; else 0 */
	/* sampled: the recording was stopped (Ctrl-C, SIGTERM) before its end, the command's
	 * exit or the duration asked for: the profile covers the run until then */
	bool partial;
	struct pmc_profile_timeline timeline; /* sampled: when samples were taken and lost */
};

struct pmc_profile;

int pmc_profile_new(const struct pmc_profile_info *info, struct pmc_profile **ret);
void pmc_profile_free(struct pmc_profile *p);

/* The profile's information (strings owned by the profile). */
const struct pmc_profile_info *pmc_profile_info(const struct pmc_profile *p);
/* Sets the counters of the information (samples, lost, unresolved) after the fact. */
void pmc_profile_set_counts(struct pmc_profile *p, uint64_t samples, uint64_t lost,
			    uint64_t unresolved);
void pmc_profile_set_throttled(struct pmc_profile *p, uint64_t throttled);
/* Whether the input said how many samples were lost (info.lost_unknown is its opposite). */
void pmc_profile_set_lost_known(struct pmc_profile *p, bool known);
void pmc_profile_set_timeline(struct pmc_profile *p, const struct pmc_profile_timeline *t);
void pmc_profile_set_partial(struct pmc_profile *p, bool partial);

/* The id of the frame (symbol, object, offset): the same id for the same three values
 * (interned; offset ignored when symbol is set). Returns 0, -ENOMEM, -EINVAL, or -ERANGE
 * for an offset beyond PMC_PROFILE_OFFSET_MAX without a symbol. */
int pmc_profile_frame_id(struct pmc_profile *p, const char *symbol, const char *object,
			 uint64_t offset, uint32_t *ret_id);

/* Adds weight and samples to the stack of frames (root first; depth >= 1): the same
 * frames are one stack (truncated if any of its additions was). Returns 0, -EINVAL (bad id,
 * depth 0), -EOVERFLOW (the weights would add up beyond 2^64-1), -ENOMEM. */
int pmc_profile_add(struct pmc_profile *p, const uint32_t *frames, uint32_t depth, uint64_t weight,
		    uint64_t samples, bool truncated);

/* The id of the task (pid, tid, comm; comm may be NULL): the same id for the same three.
 * Returns 0, -EINVAL (an empty comm) or -ENOMEM. */
int pmc_profile_task_id(struct pmc_profile *p, uint32_t pid, uint32_t tid, const char *comm,
			uint32_t *ret_id);
/* pmc_profile_add, the stack kept apart for task (an id, or PMC_PROFILE_NO_TASK): the same
 * frames of two tasks are two stacks. Views by function (functions, diff, folded stacks,
 * flame graphs) merge them; only the views by task tell them apart. */
int pmc_profile_add_task(struct pmc_profile *p, const uint32_t *frames, uint32_t depth,
			 uint32_t task, uint64_t weight, uint64_t samples, bool truncated);
size_t pmc_profile_task_count(const struct pmc_profile *p);
const struct pmc_profile_task *pmc_profile_task(const struct pmc_profile *p, uint32_t id);

size_t pmc_profile_frame_count(const struct pmc_profile *p);
const struct pmc_profile_frame *pmc_profile_frame(const struct pmc_profile *p, uint32_t id);
size_t pmc_profile_stack_count(const struct pmc_profile *p);
const struct pmc_profile_stack *pmc_profile_stack(const struct pmc_profile *p, size_t i);
/* Sum of every stack's weight. */
uint64_t pmc_profile_total(const struct pmc_profile *p);
/* Sum of every stack's samples (exact: 0). */
uint64_t pmc_profile_samples(const struct pmc_profile *p);
/* Sum of the weight of the stacks whose call chain was cut (truncated): their callers are
 * missing, so every view says how much this is. */
uint64_t pmc_profile_truncated(const struct pmc_profile *p);

/* The display name of a frame in every view: the symbol, a pseudo-object ("[kernel]",
 * "[vdso]", "[anon]", "[unknown]") as itself, or "OBJECT+0xOFFSET" (the object's base
 * name, the offset in hex) when it has none: one row per unresolved address, as perf
 * shows them. Writes into buf. */
const char *pmc_profile_frame_name(const struct pmc_profile *p, uint32_t id, char *buf, size_t len);

/* Functions by display name: self (leaf) and total (on the stack at all, counted once per
 * stack even when recursive) weights, sorted by self, then total, descending, then name. */
struct pmc_profile_fn {
	char *name;   /* display name (owned by the array) */
	char *object; /* the object's path */
	uint64_t self, total;
	uint64_t self_samples; /* samples of the stacks whose leaf it is (exact: 0) */
};
int pmc_profile_functions(const struct pmc_profile *p, struct pmc_profile_fn **ret, size_t *ret_n);
void pmc_profile_functions_free(struct pmc_profile_fn *fns, size_t n);

/* How each function changed between old and new (functions are matched by display
 * name, so two builds in different directories still match). Shares are self / total of
 * each profile. How they are compared is pmc_profile_diff_mode's (docs/profile.md, "The
 * diff"): amounts of one thing by the change of self weight (change, with its interval
 * for sampled ones), the changes beyond sampling error first (clear), then the others,
 * each by |change|; two off-CPU profiles by the change of total weight, exact; any other
 * pair by |delta| (shares: the runs' totals mean nothing to
 * each other). Then by name. */
struct pmc_profile_delta {
	char *name;
	uint64_t old_self, new_self;
	uint64_t old_samples, new_samples; /* self samples (sampled profiles; exact: 0) */
	uint64_t old_total, new_total;	   /* with what it calls, each stack once */
	double old_share, new_share;	   /* self / total, 0 when absent from that side */
	double delta;  /* new_share - old_share; pmc_profile_attribute: the part */
	double change; /* new_self - old_self */
	/* pmc_profile_diff of amounts: change's 95% interval (exact: lo == hi == change),
	 * and whether it is beyond sampling error (exact: not 0). pmc_profile_attribute:
	 * the part's 95% interval (exact: lo == hi == part), and whether the part is a
	 * finding: exact, or sampled with at least PMC_PROFILE_ATTRIBUTE_MIN_SAMPLES samples
	 * of the function on the two sides together and an interval that excludes 0. */
	double lo, hi;
	bool clear;
};

/* The event of an off-CPU profile (record --off-cpu: each wait's stack weighs the
 * nanoseconds until its thread ran again) and whether p is one. */
#define PMC_PROFILE_OFF_CPU_EVENT "off-cpu"
bool pmc_profile_off_cpu(const struct pmc_profile *p);

/* How two profiles' weights compare. */
enum pmc_profile_diff_mode {
	/* Shares of each profile's total: different events, or weights that are numbers of
	 * samples at rates not known (folded stacks). */
	PMC_PROFILE_DIFF_SHARES = 0,
	/* Two exact profiles of one event: counts of one thing, exact. */
	PMC_PROFILE_DIFF_COUNTS,
	/* Two sampled profiles of one event whose weights are an amount (cpu-clock's ns,
	 * cycles): a function whose time did not change did not change, however its share
	 * moved; each change has its sampling interval (pmc_count_change). */
	PMC_PROFILE_DIFF_AMOUNTS,
	/* Two off-CPU profiles (pmc_profile_off_cpu): the time each function waited, its
	 * total weight (the self time of a wait is the kernel's schedule, where every
	 * thread leaves its CPU), measured wait by wait, not sampled: exact changes. */
	PMC_PROFILE_DIFF_WAITS,
};
enum pmc_profile_diff_mode pmc_profile_diff_mode(const struct pmc_profile *old_p,
						 const struct pmc_profile *new_p);
/* The confidence of a sampled change's interval. */
#define PMC_PROFILE_DIFF_CONFIDENCE 0.95
/* What one sample of p stands for, on average: its total over its samples (sampled
 * profiles with samples; else 0). */
double pmc_profile_per_sample(const struct pmc_profile *p);
/* The change of an amount and its interval, old weight w0 in k0 samples of a profile
 * whose samples stand for p0 each, new alike (pmc_count_change with the function's own
 * worth per sample where it has samples). Exact (p0 and p1 0): the change itself. */
void pmc_profile_change(uint64_t w0, uint64_t k0, double p0, uint64_t w1, uint64_t k1, double p1,
			double *ret_change, double *ret_lo, double *ret_hi, bool *ret_clear);
int pmc_profile_diff(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
		     struct pmc_profile_delta **ret, size_t *ret_n);

/* Which profile can say where a metric's change went: a profile of that metric
 * (docs/profile.md, "Profiles in the gate"). "/op" and event modifiers (":u") are
 * ignored. */
enum pmc_profile_fit {
	PMC_PROFILE_FIT_NONE = 0, /* not a profile of the metric (max-rss, page-faults with a
				   * time profile; time with an instruction count) */
	PMC_PROFILE_FIT_SAMPLED,  /* sampled: time (task-clock, cpu-clock, wall-time,
				   * user-time, cycles) with a time profile (cpu-clock,
				   * task-clock, cycles), or the sampled event itself */
	PMC_PROFILE_FIT_EXACT,	  /* exact: instructions with callgrind's Ir */
};
enum pmc_profile_fit pmc_profile_fits_metric(const struct pmc_profile *p, const char *metric);

/* A sampled function's part is named only with this many self samples on the two sides
 * together, and a 95% interval that excludes 0: one sample is no cause. */
#define PMC_PROFILE_ATTRIBUTE_MIN_SAMPLES 10

/* Which functions account for a change of a metric measured over the same runs as the
 * profiles: old_value and new_value are the metric's totals (a median per run) on each
 * side; a function's part of the change is new_share * new_value - old_share * old_value,
 * and `part` is that divided by (new_value - old_value). For an exact profile of the
 * metric itself, pass its totals: the parts are then exact. When either profile is
 * sampled, each share has the 95% Wilson score interval of the function's self samples
 * among the profile's, moved to the share of weight, and the part's interval combines
 * the two shares' bounds at their extremes (conservative: the parts' sampling error
 * only; the values' own is the comparison's). Sorted by part, largest first; entries use
 * pmc_profile_delta with `delta` holding the part. -EDOM when the values are equal. */
int pmc_profile_attribute(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
			  double old_value, double new_value, struct pmc_profile_delta **ret,
			  size_t *ret_n);
void pmc_profile_deltas_free(struct pmc_profile_delta *d, size_t n);

/* Saves p as "pmcbench-profile/1" JSON at path, atomically (harness/0-base/atomic_file.h).
 * Returns 0 or -errno with one line in err. */
int pmc_profile_save(const struct pmc_profile *p, const char *path, char *err, size_t errlen);

/* Loads a profile saved by pmc_profile_save(). A file that is not one (another schema, a
 * truncated or malformed file, a frame id out of range) fails with -EINVAL and one line
 * in err naming the file, the place and what to do; -errno when it cannot be read. */
int pmc_profile_load(const char *path, struct pmc_profile **ret, char *err, size_t errlen);

/* The two steps of pmc_profile_load(), for readers that look at the content first
 * (profile_import.h): opens path for reading, refusing a directory or a device with one
 * line in err; then loads the JSON from f (path names it in messages, which are not yet
 * escaped). Return 0 or -errno. */
int pmc_profile_open(const char *path, FILE **ret, char *err, size_t errlen);
int pmc_profile_load_json(FILE *f, const char *path, struct pmc_profile **ret, char *err,
			  size_t errlen);
