/* A profile built from the sampler's records as they arrive (record_build.h): MMAP2, COMM,
 * FORK and EXIT rebuild the address spaces (maps.h), each sample becomes a stack of names
 * (the kernel's frame-pointer chain, or its user stack unwound with the objects' CFI:
 * unwind.h) added to the profile, and the record is forgotten. */
#include "profile/record_build.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "counters/perf/sample.h"
#include "profile/lines.h"
#include "profile/maps.h"
#include "profile/names.h"
#include "profile/offcpu.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"
#include "profile/record.h"
#include "profile/record_timeline.h"
#include "profile/unwind.h"

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

/* A thread's name as the records tell it (docs/profile.md, "Tasks"): its process's at
 * exec (COMM with the exec flag), its parent's at clone (FORK), then its own once it
 * names itself (prctl(PR_SET_NAME), pthread_setname_np: COMM, exec flag clear). */
struct thread {
	char key[12];  /* the tid in decimal: the map's key */
	char comm[16]; /* TASK_COMM_LEN, with its NUL; "" while not known */
	bool looked;   /* attached: /proc was read for it */
	uint32_t pid, tid;
	uint32_t task; /* its task in the profile for pid and comm, or PMC_PROFILE_NO_TASK */
};

struct pmc_profile_builder {
	const struct pmc_sample_opts *so;
	struct pmc_hashmap thread_ids; /* tid -> index into threads */
	struct thread **threads;
	size_t nthreads, threads_cap;
	struct thread *last; /* the thread of the last lookup: samples come in runs */
	struct pmc_maps *maps;
	struct pmc_profile *p;
	uint32_t max_stack;
	uint64_t unresolved;
	/* DWARF call graphs: the unwinder, room for a kernel chain and an unwound one, and
	 * how many samples' unwinds stopped for each reason (enum pmc_unwind_end). */
	struct pmc_unwinder *unwinder;
	uint64_t *chain;
	uint64_t ends[PMC_UNWIND_MAX_DEPTH + 1];
	uint64_t cut_ends[PMC_UNWIND_MAX_DEPTH + 1]; /* of those, the stacks left cut */
	struct pmc_record_timeline timeline;	     /* when samples were taken and lost */
	/* Off-CPU time: each sample is a switch-out, its stack weighed once the thread runs
	 * again (offcpu.h); the latest time of a record, where a wait still pending ends. */
	struct pmc_offcpu *offcpu;
	uint64_t last_time;
	bool monotonic; /* the records' times are CLOCK_MONOTONIC's, a jitdump's clock */
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

/* The thread tid, made (its name not known) when new; NULL: out of memory. */
static struct thread *thread_of(struct pmc_profile_builder *b, uint32_t tid)
{
	char key[12];
	struct thread *t;
	size_t i;

	if (b->last && b->last->tid == tid)
		return b->last;
	snprintf(key, sizeof(key), "%u", (unsigned)tid);
	if (pmc_hashmap_get(&b->thread_ids, key, &i) == 0)
		return b->last = b->threads[i];
	if (pmc_grow_to(&b->threads, &b->threads_cap, b->nthreads + 1, sizeof(*b->threads)) < 0 ||
	    !(t = calloc(1, sizeof(*t))))
		return NULL;
	memcpy(t->key, key, sizeof(key));
	t->tid = tid;
	t->task = PMC_PROFILE_NO_TASK;
	if (pmc_hashmap_put(&b->thread_ids, t->key, b->nthreads) < 0) {
		free(t);
		return NULL;
	}
	b->threads[b->nthreads++] = t;
	return b->last = t;
}

static void thread_name(struct thread *t, uint32_t pid, const char *comm)
{
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->pid = pid;
	t->task = PMC_PROFILE_NO_TASK;
}

/* Follows the threads' names through COMM and FORK records. Returns 0 or -ENOMEM. */
static int track_comm(struct pmc_profile_builder *b, const struct pmc_record *rec)
{
	struct thread *t, *parent;

	if (rec->type == PMC_RECORD_COMM && rec->comm.comm) {
		if (!(t = thread_of(b, rec->tid)))
			return -ENOMEM;
		thread_name(t, rec->pid, rec->comm.comm);
	} else if (rec->type == PMC_RECORD_FORK) {
		/* A new thread or process starts with its parent's name (the kernel copies
		 * comm at clone); a tid used again is a new thread. */
		if (!(parent = thread_of(b, rec->task.ptid)) || !(t = thread_of(b, rec->tid)))
			return -ENOMEM;
		thread_name(t, rec->pid, parent->comm);
		t->looked = false;
	}
	return 0;
}

/* Attached: a thread that ran before the attach has had no COMM record, and is named from
 * /proc while the process runs (perf record -p reads /proc for its threads likewise). */
static void read_proc_comm(struct thread *t, uint32_t pid, uint32_t tid)
{
	char path[64], buf[sizeof(t->comm)] = "";
	FILE *f;

	t->looked = true;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", (unsigned)pid, (unsigned)tid);
	if (!(f = fopen(path, "re")))
		return;
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	if (buf[0])
		thread_name(t, pid, buf);
}

/* The profile's task of a sample: its process, thread and the thread's name now. The
 * process's main thread is a task too (perhaps without samples), so that a view by
 * process can name it. Returns 0 or -ENOMEM. */
static int task_of(struct pmc_profile_builder *b, const struct pmc_record *rec, uint32_t *ret)
{
	struct thread *t = thread_of(b, rec->tid), *lead;
	uint32_t id;
	int r;

	if (!t)
		return -ENOMEM;
	if (t->task != PMC_PROFILE_NO_TASK && t->pid == rec->pid) {
		*ret = t->task;
		return 0;
	}
	if (!t->comm[0] && !t->looked && b->so->attach)
		read_proc_comm(t, rec->pid, rec->tid);
	if (rec->tid != rec->pid) {
		if (!(lead = thread_of(b, rec->pid)))
			return -ENOMEM;
		if (!lead->comm[0] && !lead->looked && b->so->attach)
			read_proc_comm(lead, rec->pid, rec->pid);
		if (lead->comm[0] &&
		    (r = pmc_profile_task_id(b->p, rec->pid, rec->pid, lead->comm, &id)) < 0)
			return r;
	}
	r = pmc_profile_task_id(b->p, rec->pid, rec->tid, t->comm[0] ? t->comm : NULL, &t->task);
	if (r < 0)
		return r;
	t->pid = rec->pid;
	*ret = t->task;
	return 0;
}

/* Whether a stack (root first) whose outermost user frame is frames[0] starts where a
 * task's stack starts (names.h): that frame is an entry point, or whatever ran main is
 * on it (profile.c keeps the stack from there). */
static bool reaches_entry(const struct pmc_profile *p, const uint32_t *frames, uint32_t depth)
{
	if (pmc_profile_entry_point(pmc_profile_frame(p, frames[0])->symbol))
		return true;
	for (uint32_t i = 1; i < depth; i++)
		if (pmc_profile_frame(p, frames[i])->symbol &&
		    !strcmp(pmc_profile_frame(p, frames[i])->symbol, PMC_PROFILE_BELOW_MAIN))
			return true;
	return false;
}

/* pmc_profile_add_sample, kept apart for task. A frame-pointer chain (dwarf false) is
 * whole when its outermost user frame is an entry point, whatever the walk did: one that
 * ends anywhere else was cut (the walk met a frame without a frame pointer). A DWARF one
 * is cut when the unwinder says so (cut) and it did not reach an entry point. *ret_cut
 * (may be NULL) says whether the stack was marked truncated. */
static int add_chain(struct pmc_profile *p, struct pmc_maps *m, const struct pmc_record *rec,
		     uint32_t max_stack, bool dwarf, bool cut, uint32_t task, uint64_t *unresolved,
		     bool *ret_cut, struct pmc_offcpu *oc)
{
	uint32_t buf[256], *frames = buf, nips, nkernel, depth = 0, nuser = 0;
	uint64_t dummy = 0, leaf_vaddr = 0;
	bool truncated, unnamed_kernel = false, leaf_in_file = false;
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
		leaf_in_file = !rec->sample.kernel && res.has_vaddr;
		leaf_vaddr = res.vaddr;
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
		if (i == 0) {
			leaf_in_file = !kernel && res.has_vaddr;
			leaf_vaddr = res.vaddr;
		}
		r = frame_of(p, &res, kernel, unresolved, &frames[depth++]);
		nuser += !kernel;
	}
	if (r == 0) {
		/* Leaf first from the kernel; the profile wants the root first. */
		for (uint32_t i = 0; i < depth / 2; i++) {
			uint32_t t = frames[i];

			frames[i] = frames[depth - 1 - i];
			frames[depth - 1 - i] = t;
		}
		/* The user frames are the first nuser, root first. */
		if (nips && nuser)
			truncated = dwarf ? truncated && !reaches_entry(p, frames, nuser)
					  : !reaches_entry(p, frames, nuser);
		if (ret_cut)
			*ret_cut = truncated;
		/* A switch-out weighs the time until the thread runs again, not yet known. */
		r = oc ? pmc_offcpu_out(oc, p, rec->tid, rec->time, frames, depth, task, truncated)
		       : pmc_profile_add_task(p, frames, depth, task, rec->sample.period, 1,
					      truncated);
	}
	/* The leaf's address in its file, for the source lines (profile_lines.h). */
	if (r == 0 && !oc && leaf_in_file && pmc_profile_lines(p))
		r = pmc_profile_lines_add(pmc_profile_lines(p), frames[depth - 1], leaf_vaddr,
					  rec->sample.period, 1);
	if (frames != buf)
		free(frames);
	return r;
}

int pmc_profile_add_sample(struct pmc_profile *p, struct pmc_maps *m, const struct pmc_record *rec,
			   uint32_t max_stack, uint64_t *unresolved)
{
	return add_chain(p, m, rec, max_stack, false, false, PMC_PROFILE_NO_TASK, unresolved, NULL,
			 NULL);
}

/* A sample of a DWARF call graph: its kernel chain (the kernel walked no user frames),
 * then its user stack as the unwinder found it, the stack cut wherever the unwind did not
 * reach the outermost frame. */
static int add_dwarf_sample(struct pmc_profile_builder *b, const struct pmc_record *rec,
			    uint32_t task)
{
	struct pmc_record r = *rec;
	uint32_t nk = rec->sample.nips < rec->sample.nkernel ? 0 : rec->sample.nkernel;
	enum pmc_unwind_end end;
	bool cut = false;
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
	rc = add_chain(b->p, b->maps, &r, 0, true, end != PMC_UNWIND_WHOLE, task, &b->unresolved,
		       &cut, b->offcpu);
	/* An unwind that stopped past an entry point lost nothing: only the stacks it
	 * left cut are the notes' (dwarf_notes). */
	if (rc == 0 && cut)
		b->cut_ends[end]++;
	return rc;
}

static int on_record(const struct pmc_record *rec, void *ud)
{
	struct pmc_profile_builder *b = ud;
	uint32_t task;
	int rc;

	if ((rc = pmc_record_timeline_add(&b->timeline, rec)) < 0)
		return rc;
	if (rec->time > b->last_time)
		b->last_time = rec->time;
	if (rec->type == PMC_RECORD_SAMPLE) {
		if ((rc = task_of(b, rec, &task)) < 0)
			return rc;
		pmc_maps_at(b->maps, b->monotonic ? rec->time : 0);
		return b->unwinder ? add_dwarf_sample(b, rec, task)
				   : add_chain(b->p, b->maps, rec, b->max_stack, false, false, task,
					       &b->unresolved, NULL, b->offcpu);
	}
	/* Off CPU until the thread takes a CPU again, or exits (docs/profile.md, "Off-CPU
	 * time"). */
	if (b->offcpu &&
	    ((rec->type == PMC_RECORD_SWITCH && !rec->sw.out) || rec->type == PMC_RECORD_EXIT))
		if ((rc = pmc_offcpu_in(b->offcpu, b->p, rec->tid, rec->time)) < 0)
			return rc;
	if (rec->type == PMC_RECORD_SWITCH)
		return 0;
	if ((rc = track_comm(b, rec)) < 0)
		return rc;
	rc = pmc_maps_apply(b->maps, rec);
	if (rc == 0 && b->unwinder)
		pmc_unwinder_apply(b->unwinder, rec);
	return rc;
}

/* Why DWARF unwinds stopped short, once per reason, with how many samples: their
 * callers are missing (never guessed), which the truncated weight shows. */
static void dwarf_notes(const struct pmc_profile_builder *b, uint32_t stack_size, uint64_t samples,
			void (*note)(const char *, void *), void *note_ud)
{
	char msg[512];

	if (!note)
		return;
	if (b->ends[PMC_UNWIND_STACK_SHORT]) {
		snprintf(
		    msg, sizeof(msg),
		    "DWARF call graph: %llu of %llu samples reached the end of their %u-byte "
		    "stack copy before their outermost frame; those that had not reached main "
		    "lose their callers (the report's Truncated line weighs them): record with "
		    "a larger copy (--call-graph dwarf,%u; at most %d)",
		    (unsigned long long)b->ends[PMC_UNWIND_STACK_SHORT],
		    (unsigned long long)samples, (unsigned)stack_size,
		    stack_size * 2 > PMC_SAMPLE_STACK_MAX ? PMC_SAMPLE_STACK_MAX : stack_size * 2,
		    PMC_SAMPLE_STACK_MAX);
		note(msg, note_ud);
	}
	if (b->cut_ends[PMC_UNWIND_NO_CFI]) {
		snprintf(msg, sizeof(msg),
			 "DWARF call graph: %llu samples stopped at code without CFI (no "
			 ".eh_frame or .debug_frame entry, an unreadable or rebuilt file, JIT "
			 "code): their callers are cut",
			 (unsigned long long)b->cut_ends[PMC_UNWIND_NO_CFI]);
		note(msg, note_ud);
	}
	if (b->cut_ends[PMC_UNWIND_BAD_STACK]) {
		snprintf(msg, sizeof(msg),
			 "DWARF call graph: %llu samples stopped where the CFI did not match the "
			 "stack copy: their callers are cut",
			 (unsigned long long)b->cut_ends[PMC_UNWIND_BAD_STACK]);
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

int pmc_profile_builder_new(struct pmc_sampler *s, const struct pmc_sample_opts *so,
			    const char *event, const char *name, struct pmc_profile_builder **ret)
{
	struct pmc_profile_info info = {
	    .kind = PMC_PROFILE_SAMPLED,
	    .event = event,
	    .unit = so->off_cpu ? "ns" : pmc_sampler_unit(s),
	    .name = name,
	    .freq = pmc_sampler_freq(s),
	    .call_graph = so->no_callchain ? PMC_CALL_GRAPH_NONE
			  : so->stack_user ? PMC_CALL_GRAPH_DWARF
					   : PMC_CALL_GRAPH_FP,
	    .stack_size = so->stack_user,
	};
	struct pmc_profile_lines *lines;
	struct pmc_profile_builder *b;
	int r;

	if (!(b = calloc(1, sizeof(*b))))
		return -ENOMEM;
	b->so = so;
	b->max_stack = kernel_max_stack();
	b->monotonic = pmc_sampler_monotonic(s);
	if ((r = pmc_maps_new(&b->maps)) < 0)
		goto fail;
	if (so->off_cpu && !(b->offcpu = pmc_offcpu_new())) {
		r = -ENOMEM;
		goto fail;
	}
	if (so->stack_user) {
		/* The kernel's chain and the unwound one are each at most max_stack long
		 * (perf's --max-stack, the same setting, bounds its unwinds too). */
		if ((r = pmc_unwinder_new(b->maps, &b->unwinder)) < 0)
			goto fail;
		if (!(b->chain = malloc(2 * (size_t)b->max_stack * sizeof(*b->chain)))) {
			r = -ENOMEM;
			goto fail;
		}
	}
	if ((r = pmc_profile_new(&info, &b->p)) < 0 || (r = pmc_profile_lines_new(&lines)) < 0)
		goto fail;
	pmc_profile_set_lines(b->p, lines);
	*ret = b;
	return 0;
fail:
	pmc_profile_builder_free(b);
	return r;
}

void pmc_profile_builder_prepare(struct pmc_profile_builder *b)
{
	if (!b->so->exclude_kernel)
		pmc_maps_prepare_kernel(b->maps);
}

struct pmc_maps *pmc_profile_builder_maps(struct pmc_profile_builder *b)
{
	return b->maps;
}

int pmc_profile_builder_take(struct pmc_profile_builder *b, struct pmc_sampler *s, bool all)
{
	return pmc_sampler_flush(s, all, on_record, b);
}

struct pmc_profile *pmc_profile_builder_finish(struct pmc_profile_builder *b, struct pmc_sampler *s,
					       void (*note)(const char *, void *), void *note_ud)
{
	struct pmc_profile *p = b->p;
	struct pmc_profile_timeline timeline;
	char msg[160];
	int r;

	/* Waits pending at the end count until the last record (offcpu.h). */
	if (b->offcpu && (r = pmc_offcpu_finish(b->offcpu, p, b->last_time)) < 0 && note) {
		snprintf(msg, sizeof(msg),
			 "off-CPU waits still pending at the end were not added: %s", strerror(-r));
		note(msg, note_ud);
	}
	for (size_t i = 0; note && i < pmc_maps_problem_count(b->maps); i++)
		note(pmc_maps_problem(b->maps, i), note_ud);
	if (b->unwinder)
		dwarf_notes(b, b->so->stack_user, pmc_sampler_samples(s), note, note_ud);
	/* The profile holds its names: the objects' CFI and symbols and the kernel's (8 MB
	 * of /proc/kallsyms) go before the source lines' DWARF is read, so that the two are
	 * never in memory together (record's peak RSS, bench/README.md). */
	pmc_unwinder_free(b->unwinder);
	b->unwinder = NULL;
	pmc_maps_free(b->maps);
	b->maps = NULL;
	/* Looked up now, while the mapped files are the ones on disk (lines.h). */
	if ((r = pmc_lines_resolve(p)) < 0 && note) {
		snprintf(msg, sizeof(msg), "source lines were not looked up: %s", strerror(-r));
		note(msg, note_ud);
	}
	if (note && pmc_sampler_store_full(s)) {
		char full[400];

		snprintf(
		    full, sizeof(full),
		    "the samples came faster than they were named: the records copied out of "
		    "the rings reached their bound (%zu MiB) %llu times, and the kernel dropped "
		    "what its rings could not hold meanwhile; record with a lower frequency%s",
		    (b->so->store_max ? b->so->store_max : PMC_SAMPLE_STORE_DEFAULT) >> 20,
		    (unsigned long long)pmc_sampler_store_full(s),
		    b->so->stack_user ? " or a smaller stack copy" : "");
		note(full, note_ud);
	}
	pmc_profile_set_counts(p, pmc_sampler_samples(s), pmc_sampler_lost(s), b->unresolved);
	pmc_profile_set_throttled(p, pmc_sampler_throttled(s));
	pmc_record_timeline_get(&b->timeline, &timeline);
	pmc_profile_set_timeline(p, &timeline);
	b->p = NULL;
	return p;
}

void pmc_profile_builder_free(struct pmc_profile_builder *b)
{
	if (!b)
		return;
	pmc_profile_free(b->p);
	for (size_t i = 0; i < b->nthreads; i++)
		free(b->threads[i]);
	free(b->threads);
	pmc_hashmap_free(&b->thread_ids);
	pmc_unwinder_free(b->unwinder);
	free(b->chain);
	pmc_record_timeline_free(&b->timeline);
	pmc_offcpu_free(b->offcpu);
	pmc_maps_free(b->maps);
	free(b);
}
