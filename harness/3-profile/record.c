/* Recording one run of a command into a profile (record.h). The sampler is opened by the
 * child itself just before exec (pid 0, enable_on_exec), like the runner's counters, so
 * not one sample falls before the command starts; a thread of ours empties the rings
 * while the command runs, and once it was reaped every record is replayed in time order:
 * MMAP2, COMM, FORK and EXIT rebuild the address spaces, each sample becomes a stack. */
#include "profile/record.h"

#include <errno.h>
#include <glob.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/sample.h"
#include "counters/valgrind/valgrind.h"
#include "base/error.h"
#include "base/opts.h"
#include "profile/callgrind.h"
#include "profile/maps.h"
#include "profile/profile.h"
#include "profile/unwind.h"
#include "run/spawn.h"

/* The kernel's default limit of a call chain (sysctl kernel.perf_event_max_stack), when
 * the setting cannot be read. */
#define PMC_RECORD_MAX_STACK 127

/* The longest call chain the kernel gives (the sampler leaves attr.sample_max_stack at 0,
 * which means this setting): a chain that long was cut. */
static uint32_t kernel_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	unsigned v = 0;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : PMC_RECORD_MAX_STACK;
}

struct sampling {
	struct pmc_sample_opts so;
	_Atomic(struct pmc_sampler *) sampler; /* set by the child, read by the drain thread */
	atomic_bool done;
	int open_err;
	char open_msg[256];
	int poll_err;
};

/* In the child, before exec (pmc_spawn_opts.in_child): memory is shared with us. */
static int open_in_child(void *ud)
{
	struct sampling *st = ud;
	struct pmc_sampler *s = NULL;

	st->open_err = pmc_sampler_open(&st->so, 0, &s, st->open_msg, sizeof(st->open_msg));
	if (st->open_err < 0)
		return st->open_err;
	atomic_store_explicit(&st->sampler, s, memory_order_release);
	return 0;
}

/* Empties the rings while the command runs, so that they do not overflow. */
static void *drain(void *ud)
{
	struct sampling *st = ud;

	while (!atomic_load_explicit(&st->done, memory_order_acquire)) {
		struct pmc_sampler *s = atomic_load_explicit(&st->sampler, memory_order_acquire);
		int r;

		if (!s) {
			struct timespec ts = {0, 2 * 1000 * 1000};

			nanosleep(&ts, NULL);
			continue;
		}
		r = pmc_sampler_poll(s, 50);
		if (r < 0) {
			st->poll_err = r;
			break;
		}
	}
	return NULL;
}

struct builder {
	struct pmc_maps *maps;
	struct pmc_profile *p;
	uint32_t max_stack;
	uint64_t unresolved;
	/* DWARF call graphs: the unwinder, room for a kernel chain and an unwound one, and
	 * how many samples' unwinds stopped for each reason (enum pmc_unwind_end). */
	struct pmc_unwinder *unwinder;
	uint64_t *chain;
	uint64_t ends[PMC_UNWIND_MAX_DEPTH + 1];
};

/* One frame of a sample into *ret_id. A frame without a symbol whose offset no profile
 * file can hold (a user address beyond 2^63) is the bare "[unknown]" object. Returns
 * 0 or -ENOMEM. */
static int frame_of(struct pmc_profile *p, const struct pmc_resolved *res, bool kernel,
		    uint64_t *unresolved, uint32_t *ret_id)
{
	const char *object = res->object;
	uint64_t offset = res->offset;

	if (!res->symbol && offset > PMC_PROFILE_OFFSET_MAX) {
		object = "[unknown]";
		offset = 0;
	}
	/* Kernel frames are named where the kernel shows its symbols, and say why not
	 * elsewhere, once: not a failure to count per frame. */
	if (!res->symbol && !kernel)
		(*unresolved)++;
	return pmc_profile_frame_id(p, res->symbol, object, offset, ret_id);
}

/* pmc_profile_add_sample, the stack marked cut when cut is set. */
static int add_chain(struct pmc_profile *p, struct pmc_maps *m, const struct pmc_record *rec,
		     uint32_t max_stack, bool cut, uint64_t *unresolved)
{
	uint32_t buf[256], *frames = buf, nips, nkernel, depth = 0;
	uint64_t dummy = 0;
	bool truncated, unnamed_kernel = false;
	int r = 0;

	if (!p || !rec || rec->type != PMC_RECORD_SAMPLE ||
	    rec->sample.nkernel > rec->sample.nips || (rec->sample.nips && !rec->sample.ips))
		return -EINVAL;
	if (!unresolved)
		unresolved = &dummy;
	nips = rec->sample.nips;
	nkernel = rec->sample.nkernel;
	/* The kernel stops after max_stack addresses, kernel and user ones together
	 * (perf_callchain_store): a chain that long was cut. */
	truncated = cut || (max_stack && nips >= max_stack);
	if (nips > sizeof(buf) / sizeof(buf[0]) && !(frames = malloc(nips * sizeof(*frames))))
		return -ENOMEM;
	if (!nips && rec->sample.foreign) {
		/* Time in the hypervisor or a guest: one frame that says so, as the
		 * kernel's part is one "[kernel]" frame. */
		struct pmc_resolved res = {.object = "[hypervisor or guest]"};

		r = frame_of(p, &res, true, unresolved, &frames[depth++]);
	} else if (!nips) {
		struct pmc_resolved res;

		pmc_maps_resolve(m, rec->pid, rec->sample.ip, rec->sample.kernel, &res);
		r = frame_of(p, &res, rec->sample.kernel, unresolved, &frames[depth++]);
	}
	for (uint32_t i = 0; r == 0 && i < nips; i++) {
		bool kernel = i < nkernel;
		/* The first user address is where the task was (the leaf, or where it entered
		 * the kernel), as the first kernel one is; every later one is a return address
		 * the kernel read from a frame-pointer chain, looked up one byte earlier so
		 * that a call at a function's very end is not taken for the next function. */
		bool ret_addr = i > nkernel || (kernel && i > 0);
		struct pmc_resolved res;

		/* A 0 return address is where the chain ends (the outermost frame's, as _start
		 * leaves it): the stack is whole, and 0 is no frame. */
		if (ret_addr && !kernel && rec->sample.ips[i] == 0)
			break;
		pmc_maps_resolve(m, rec->pid,
				 ret_addr ? rec->sample.ips[i] - 1 : rec->sample.ips[i], kernel,
				 &res);
		/* Kernel functions unnamed (kallsyms hidden) are one "[kernel]" frame for
		 * the kernel's part. */
		if (kernel && !res.symbol && unnamed_kernel)
			continue;
		unnamed_kernel = kernel && !res.symbol;
		/* A return address outside every mapping of the task (or beyond what a file
		 * can hold) is no return address: the chain walked into memory that is no
		 * frame (code built without frame pointers keeps data in rbp). It and
		 * everything the walk read after it are dropped, and the stack is marked
		 * cut (docs/profile.md, "Call chains"). */
		if (ret_addr && !kernel &&
		    (res.unmapped || (!res.symbol && res.offset > PMC_PROFILE_OFFSET_MAX))) {
			truncated = true;
			break;
		}
		r = frame_of(p, &res, kernel, unresolved, &frames[depth++]);
	}
	if (r == 0) {
		/* Leaf first from the kernel; the profile wants the root first. */
		for (uint32_t i = 0; i < depth / 2; i++) {
			uint32_t t = frames[i];

			frames[i] = frames[depth - 1 - i];
			frames[depth - 1 - i] = t;
		}
		r = pmc_profile_add(p, frames, depth, rec->sample.period, 1, truncated);
	}
	if (frames != buf)
		free(frames);
	return r;
}

int pmc_profile_add_sample(struct pmc_profile *p, struct pmc_maps *m, const struct pmc_record *rec,
			   uint32_t max_stack, uint64_t *unresolved)
{
	return add_chain(p, m, rec, max_stack, false, unresolved);
}

/* A sample of a DWARF call graph: its kernel chain (the kernel walked no user frames),
 * then its user stack as the unwinder found it, the stack cut wherever the unwind did not
 * reach the outermost frame. */
static int add_dwarf_sample(struct builder *b, const struct pmc_record *rec)
{
	struct pmc_record r = *rec;
	uint32_t nk = rec->sample.nips < rec->sample.nkernel ? 0 : rec->sample.nkernel;
	enum pmc_unwind_end end;
	size_t n;
	int rc;

	if (nk > b->max_stack)
		nk = b->max_stack;
	if (nk)
		memcpy(b->chain, rec->sample.ips, nk * sizeof(*b->chain));
	rc = pmc_unwind_sample(b->unwinder, rec, b->chain + nk, b->max_stack, &n, &end);
	if (rc < 0)
		return rc;
	/* A kernel thread has no user stack: its kernel chain is whole. */
	if (end == PMC_UNWIND_NO_REGS && rec->sample.regs_abi == PERF_SAMPLE_REGS_ABI_NONE &&
	    rec->sample.kernel)
		end = PMC_UNWIND_WHOLE;
	b->ends[end]++;
	r.sample.ips = b->chain;
	r.sample.nips = nk + (uint32_t)n;
	r.sample.nkernel = nk;
	/* No frame at all (no registers, no kernel chain): the sampled ip alone. */
	if (!r.sample.nips)
		r.sample.ips = NULL;
	return add_chain(b->p, b->maps, &r, 0, end != PMC_UNWIND_WHOLE, &b->unresolved);
}

static int on_record(const struct pmc_record *rec, void *ud)
{
	struct builder *b = ud;
	int rc;

	if (rec->type == PMC_RECORD_SAMPLE)
		return b->unwinder ? add_dwarf_sample(b, rec)
				   : pmc_profile_add_sample(b->p, b->maps, rec, b->max_stack,
							    &b->unresolved);
	rc = pmc_maps_apply(b->maps, rec);
	if (rc == 0 && b->unwinder)
		pmc_unwinder_apply(b->unwinder, rec);
	return rc;
}

/* Why DWARF unwinds stopped short, once per reason, with how many samples: their
 * callers are missing (never guessed), which the truncated weight shows. */
static void dwarf_notes(const struct builder *b, uint32_t stack_size, uint64_t samples,
			void (*note)(const char *, void *), void *note_ud)
{
	char msg[512];

	if (!note)
		return;
	if (b->ends[PMC_UNWIND_STACK_SHORT]) {
		snprintf(msg, sizeof(msg),
			 "DWARF call graph: %llu of %llu samples reached the end of their %u-byte "
			 "stack copy before their outermost frame; their callers are cut: record "
			 "with a larger copy (--call-graph dwarf,%u; at most %d)",
			 (unsigned long long)b->ends[PMC_UNWIND_STACK_SHORT],
			 (unsigned long long)samples, (unsigned)stack_size,
			 stack_size * 2 > PMC_SAMPLE_STACK_MAX ? PMC_SAMPLE_STACK_MAX
							       : stack_size * 2,
			 PMC_SAMPLE_STACK_MAX);
		note(msg, note_ud);
	}
	if (b->ends[PMC_UNWIND_NO_CFI]) {
		snprintf(msg, sizeof(msg),
			 "DWARF call graph: %llu samples stopped at code without CFI (no "
			 ".eh_frame or .debug_frame entry, an unreadable or rebuilt file, JIT "
			 "code): their callers are cut",
			 (unsigned long long)b->ends[PMC_UNWIND_NO_CFI]);
		note(msg, note_ud);
	}
	if (b->ends[PMC_UNWIND_BAD_STACK]) {
		snprintf(msg, sizeof(msg),
			 "DWARF call graph: %llu samples stopped where the CFI did not match the "
			 "stack copy: their callers are cut",
			 (unsigned long long)b->ends[PMC_UNWIND_BAD_STACK]);
		note(msg, note_ud);
	}
	if (b->ends[PMC_UNWIND_NO_REGS]) {
		snprintf(msg, sizeof(msg),
			 "DWARF call graph: %llu samples had no 64-bit user registers to unwind "
			 "from (32-bit tasks): they are their sampled function alone",
			 (unsigned long long)b->ends[PMC_UNWIND_NO_REGS]);
		note(msg, note_ud);
	}
}

static int profile_from_sampler(struct pmc_sampler *s, const struct pmc_sample_opts *so,
				const char *event, const char *name,
				void (*note)(const char *, void *), void *note_ud,
				struct pmc_profile **ret, char *err, size_t errlen)
{
	struct pmc_profile_info info = {
	    .kind = PMC_PROFILE_SAMPLED,
	    .event = event,
	    .unit = pmc_sampler_unit(s),
	    .name = name,
	    .freq = pmc_sampler_freq(s),
	    .call_graph = so->no_callchain ? PMC_CALL_GRAPH_NONE
			  : so->stack_user ? PMC_CALL_GRAPH_DWARF
					   : PMC_CALL_GRAPH_FP,
	    .stack_size = so->stack_user,
	};
	struct builder b = {.max_stack = kernel_max_stack()};
	int r;

	r = pmc_maps_new(&b.maps);
	if (r < 0)
		goto fail;
	if (so->stack_user) {
		/* The kernel's chain and the unwound one are each at most max_stack long
		 * (perf's --max-stack, the same setting, bounds its unwinds too). */
		r = pmc_unwinder_new(b.maps, &b.unwinder);
		if (r < 0)
			goto fail;
		if (!(b.chain = malloc(2 * (size_t)b.max_stack * sizeof(*b.chain)))) {
			r = -ENOMEM;
			goto fail;
		}
	}
	r = pmc_profile_new(&info, &b.p);
	if (r < 0)
		goto fail;
	r = pmc_sampler_replay(s, on_record, &b);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot build the profile from the kernel's records: %s",
			    strerror(-r));
		goto fail;
	}
	for (size_t i = 0; note && i < pmc_maps_problem_count(b.maps); i++)
		note(pmc_maps_problem(b.maps, i), note_ud);
	if (b.unwinder)
		dwarf_notes(&b, so->stack_user, pmc_sampler_samples(s), note, note_ud);
	pmc_profile_set_counts(b.p, pmc_sampler_samples(s), pmc_sampler_lost(s), b.unresolved);
	pmc_profile_set_throttled(b.p, pmc_sampler_throttled(s));
	*ret = b.p;
	b.p = NULL;
fail:
	if (r == -ENOMEM)
		pmc_err_set(err, errlen, "out of memory building the profile");
	pmc_profile_free(b.p);
	pmc_unwinder_free(b.unwinder);
	free(b.chain);
	pmc_maps_free(b.maps);
	return r;
}

/* How the command runs, profiled either way. */
static struct pmc_spawn_opts spawn_opts(const struct pmc_record_opts *o)
{
	return (struct pmc_spawn_opts){
	    .argv = o->argv,
	    .path = o->path,
	    .input_path = o->input_path,
	    .show_output = o->show_output,
	    .timeout_s = o->timeout_s,
	    .envp = o->envp,
	    .running = o->running,
	    .stop = o->stop,
	    .die_with_parent = PMC_OPTS_GET(o, die_with_parent, false),
	};
}

/* One attempt at a sampled run; -EACCES from the sampler comes back untouched so that
 * the caller can retry with user space only. */
static int record_sampled(const struct pmc_record_opts *o, bool exclude_kernel,
			  struct pmc_profile **ret, struct pmc_spawn_result *sr, char *err,
			  size_t errlen)
{
	struct sampling st = {
	    .so = {.sz = sizeof(st.so),
		   .event = o->event,
		   .freq = o->freq,
		   .no_callchain = o->no_callchain,
		   .exclude_kernel = exclude_kernel,
		   .stack_user = PMC_OPTS_GET(o, dwarf_stack, 0),
		   .enable_on_exec = true,
		   .sys = o->sys},
	};
	struct pmc_spawn_opts so = spawn_opts(o);
	struct pmc_sampler *s;
	char event[64];
	pthread_t th;
	int r, tr;

	so.in_child = open_in_child;
	so.ud = &st;
	atomic_init(&st.sampler, NULL);
	atomic_init(&st.done, false);
	tr = pthread_create(&th, NULL, drain, &st);
	if (tr) {
		pmc_err_set(err, errlen, "cannot start the thread that reads the samples: %s",
			    strerror(tr));
		return -tr;
	}
	r = pmc_spawn_run(&so, sr);
	atomic_store_explicit(&st.done, true, memory_order_release);
	pthread_join(th, NULL);
	s = atomic_load_explicit(&st.sampler, memory_order_acquire);
	if (r < 0) {
		if (st.open_err < 0)
			pmc_err_set(err, errlen, "%s", st.open_msg);
		else
			pmc_err_set(err, errlen, "cannot run '%s': %s", o->argv[0], strerror(-r));
		goto out;
	}
	if (st.poll_err < 0) {
		r = st.poll_err;
		pmc_err_set(err, errlen, "cannot read the samples of '%s': %s", o->argv[0],
			    strerror(-r));
		goto out;
	}
	r = pmc_sampler_poll(s, 0);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot read the samples of '%s': %s", o->argv[0],
			    strerror(-r));
		goto out;
	}
	snprintf(event, sizeof(event), "%s%s", pmc_sampler_event(s), exclude_kernel ? ":u" : "");
	r = profile_from_sampler(s, &st.so, event, o->name, PMC_OPTS_GET(o, note, NULL),
				 PMC_OPTS_GET(o, note_ud, NULL), ret, err, errlen);
out:
	pmc_sampler_close(s);
	return r;
}

/* The exact profile of one run under callgrind. */
static int record_valgrind(const struct pmc_record_opts *o, struct pmc_profile **ret,
			   struct pmc_spawn_result *sr, char *err, size_t errlen)
{
	struct pmc_valgrind_opts vo = {.sz = sizeof(vo),
				       .valgrind = o->valgrind_path,
				       .tool = PMC_VALGRIND_CALLGRIND,
				       .extra_args = pmc_callgrind_profile_args()};
	struct pmc_spawn_opts so = spawn_opts(o);
	char **argv = NULL, *dir = NULL, *pattern = NULL;
	glob_t g = {0};
	int r;

	PMC_OPTS_ZERO_TAIL(pmc_valgrind_opts, &vo); /* padding the initializer need not zero */
	r = pmc_valgrind_outdir_new(NULL, &dir);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot create a directory for callgrind's output: %s",
			    strerror(-r));
		return r;
	}
	vo.outdir = dir;
	so.no_aslr = true; /* as the valgrind backend's measured runs */
	r = pmc_valgrind_argv(&vo, o->argv, &argv);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': %s", o->argv[0], strerror(-r));
		goto out;
	}
	so.argv = argv;
	so.path = NULL; /* valgrind, found in PATH by its argv[0] */
	r = pmc_spawn_run(&so, sr);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': cannot run valgrind: %s", o->argv[0], strerror(-r));
		goto out;
	}
	if (asprintf(&pattern, "%s/callgrind.out.*", dir) < 0) {
		pattern = NULL;
		r = -ENOMEM;
		goto out;
	}
	if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		char why[256];

		if (pmc_valgrind_log_error(dir, why, sizeof(why)) < 0)
			snprintf(why, sizeof(why), "no output file");
		pmc_err_set(err, errlen, "'%s': callgrind wrote no profile: %s", o->argv[0], why);
		r = -EIO;
		goto out;
	}
	r = pmc_callgrind_profile((const char *const *)g.gl_pathv, g.gl_pathc,
				  o->valgrind_event ? o->valgrind_event : "Ir", o->name, ret, err,
				  errlen);
out:
	globfree(&g);
	free(pattern);
	free(argv);
	pmc_valgrind_outdir_remove(dir);
	free(dir);
	return r;
}

int pmc_profile_record(const struct pmc_record_opts *o, struct pmc_profile **ret,
		       struct pmc_spawn_result *ret_run, char *err, size_t errlen)
{
	struct pmc_spawn_result sr;
	struct pmc_profile *p = NULL;
	int r;

	if (!PMC_OPTS_VALID(o, pmc_record_opts)) {
		pmc_err_set(err, errlen,
			    "record options: bytes past the fields this library knows are set (sz %zu)",
			    o ? o->sz : (size_t)0);
		return -EINVAL;
	}
	if (!o->argv || !o->argv[0] || !ret) {
		pmc_err_set(err, errlen, "no command to profile");
		return -EINVAL;
	}
	if (o->valgrind) {
		r = record_valgrind(o, &p, &sr, err, errlen);
	} else {
		r = record_sampled(o, false, &p, &sr, err, errlen);
		/* perf_event_paranoid >= 2 refuses kernel samples to the unprivileged:
		 * user space is still worth profiling, and the event name says ":u". */
		if (r == -EACCES || r == -EPERM)
			r = record_sampled(o, true, &p, &sr, err, errlen);
	}
	if (r < 0)
		return r;
	/* Stopped by the caller (its signal handler killed the command): what was sampled
	 * until then is the profile, and it says it is not the whole run. */
	if (o->stop && *o->stop)
		pmc_profile_set_partial(p, true);
	*ret = p;
	if (ret_run)
		*ret_run = sr;
	return 0;
}
