/* Recording a profile of one run of a command (docs/profile.md, "Recording"): sampled
 * with perf_event_open (counters/perf/sample.h) on every CPU the command and its children run
 * on, the samples symbolized through the address spaces the kernel reported
 * (harness/4-profile/maps.h) and aggregated into a profile; or, with the valgrind
 * backend, an exact profile from callgrind (harness/4-profile/callgrind.h). */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/perf/sys.h"

struct pmc_maps;
struct pmc_profile;
struct pmc_record;
struct pmc_spawn_result;

struct pmc_record_opts {
	char *const *argv;	/* the command, NULL-terminated */
	const char *path;	/* the resolved executable, or NULL: argv[0] in PATH */
	const char *name;	/* the profile's name (benchmark or command); may be NULL */
	char *const *envp;	/* the command's environment; NULL: this process's */
	const char *input_path; /* its stdin, or NULL for /dev/null */
	bool show_output;	/* else its output goes to /dev/null */
	double timeout_s;	/* <= 0: none */
	volatile sig_atomic_t *running, *stop; /* as pmc_spawn_opts */
	/* Sampling (perf): the event (NULL: cycles where the machine has it, else
	 * cpu-clock), the frequency (0: PMC_SAMPLE_DEFAULT_FREQ), no call chains. */
	const char *event;
	uint64_t freq;
	bool no_callchain;
	const struct pmc_sys *sys; /* NULL: the kernel */
	/* Exact (valgrind): run the command under callgrind and profile the event
	 * valgrind_event ("Ir" when NULL). */
	bool valgrind;
	const char *valgrind_path; /* NULL: "valgrind" in PATH */
	const char *valgrind_event;
	bool die_with_parent; /* as pmc_spawn_opts */
	/* Sampled: called once for each problem met naming the samples (an object without
	 * symbols, a rebuilt file, the kernel's symbols hidden), text for the user; NULL:
	 * none is reported. */
	void (*note)(const char *text, void *ud);
	void *note_ud;
	/* Sampled: DWARF call graphs with this many bytes of user stack copied per sample
	 * (a multiple of 8, at most PMC_SAMPLE_STACK_MAX), unwound with the objects' CFI
	 * (harness/4-profile/unwind.h); 0: the kernel's frame-pointer chains. */
	uint32_t dwarf_stack;
	/* Sampled: instead of running argv, attach to the running process attach_pid (every
	 * thread it has, and those it starts) for duration_s seconds (<= 0: until it exits
	 * or *stop is set), as perf record -p; its address spaces are read from
	 * /proc/PID/maps at attach time, then followed by the kernel's records. */
	uint32_t attach_pid;
	double duration_s;
	/* Sampled: off-CPU time instead of event and freq (docs/profile.md, "Off-CPU
	 * time"): where the command's threads wait, each stack weighing the nanoseconds from
	 * a switch-out (sched:sched_switch) to the thread's next switch-in, or its exit, or
	 * the end; the profile's event is PMC_PROFILE_OFF_CPU_EVENT, its unit "ns". Needs the
	 * tracepoint: -EACCES or -ENOENT with one line in err where tracefs or the kernel refuse
	 * it. */
	bool off_cpu;
};

/* Runs the command once under the profiler (or attaches to attach_pid) and returns its
 * profile in *ret and the run's figures in *ret_run (may be NULL; attached: zeroes).
 * Stopped through *stop before its end (the command's exit, or duration_s), the profile
 * is of what was sampled until then, marked partial. A run that fails (non-zero exit, killed,
 * timed out) still gives a profile of what it did; *ret_run says how it ended. Returns 0;
 * the errors of pmc_sampler_open (-EACCES with the reason, -ENOENT when nothing can
 * sample here, -ESRCH when there is no process attach_pid); -ENOENT/-EACCES when the command cannot
 * be executed; -EINVAL/-EIO when the kernel's records or callgrind's files cannot be read; each
 * with one line in err. Kernel addresses are sampled only where allowed: a caller refused them
 * (perf_event_paranoid >= 2) gets user space only, which the profile's event says
 * ("cpu-clock:u"). */
int pmc_profile_record(const struct pmc_record_opts *o, struct pmc_profile **ret,
		       struct pmc_spawn_result *ret_run, char *err, size_t errlen);

/* One sample of the sampler (counters/perf/sample.h) into p as a stack, its addresses named
 * through m (docs/profile.md, "Call chains"): the kernel's part by function, or as one
 * "[kernel]" frame where its symbols are hidden; a 0 return address ends the chain; a
 * return address that no mapping of the task holds (a frame-pointer chain that walked
 * into data) cuts the chain there, and the stack is marked truncated, as is one of
 * max_stack addresses or more (the kernel's limit, perf_event_max_stack; 0: none). No
 * frame added has an offset a profile file cannot hold. *unresolved (may be NULL) counts
 * the user frames kept without a symbol. Returns 0, -EINVAL (not a sample), or the
 * errors of pmc_profile_add (-ENOMEM, -EOVERFLOW). */
/* Seam for the tests: one record made by hand into a profile, without a sampler
 * (record_build.c adds the sampler's). */
int pmc_profile_add_sample(struct pmc_profile *p, struct pmc_maps *m, const struct pmc_record *rec,
			   uint32_t max_stack, uint64_t *unresolved);
