/* Address spaces of the profiled tasks, rebuilt from the sampler's records (MMAP2, COMM
 * with exec, FORK, EXIT: counters/perf/sample.h), and the symbolization of an address in one
 * of them through each object's ELF symbols (harness/1-elf/symbols.h), loaded once per
 * object. An object whose build-id differs from the one the kernel saw when it was
 * mapped (the file was rebuilt since) is not symbolized: its frames stay unresolved
 * rather than named wrongly. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmc_record;
struct pmc_maps;

int pmc_maps_new(struct pmc_maps **ret);
void pmc_maps_free(struct pmc_maps *m);

/* Reads the kernel's symbols from path rather than /proc/kallsyms (for tests). Returns 0,
 * -EINVAL or -ENOMEM. */
/* Seam for the tests: a kallsyms file written by the test, whatever the machine's
 * /proc/kallsyms shows. */
int pmc_maps_set_kallsyms(struct pmc_maps *m, const char *path);

/* Reads the kernel's symbols now rather than at the first kernel address (a problem
 * noted as it would be then), so that a recording need not stop for them. */
void pmc_maps_prepare_kernel(struct pmc_maps *m);

/* JIT code is named from the jitdump its process mapped (a file jit-PID.dump, jitdump.h),
 * else from its perf map. Reads processes' perf maps (jit_map.h) from dir rather than /tmp (for
 * tests). Returns 0, -EINVAL or -ENOMEM. */
/* Seam for the tests: perf maps written by the test, not /tmp's. */
int pmc_maps_set_jit_dir(struct pmc_maps *m, const char *dir);

/* Applies one MMAP, COMM (exec clears the task's maps), FORK (the child gets a copy of
 * the parent's maps) or EXIT record; other records are ignored. Returns 0 or -ENOMEM. */
int pmc_maps_apply(struct pmc_maps *m, const struct pmc_record *rec);

/* Seeds pid's address space from /proc/PID/maps under proc_root (NULL: "/proc"), for a
 * task that was already running when sampling began (the calling process itself). */
int pmc_maps_load_proc(struct pmc_maps *m, uint32_t pid, const char *proc_root);

struct pmc_resolved {
	const char *symbol; /* NULL when no symbol covers the address */
	const char *object; /* the mapped file's path, "[kernel]", "[vdso]", "[anon]" (also
			     * for JIT code its jitdump or perf map names, mapped or not), or
			     * "[unknown]" when no mapping holds the address */
	uint64_t offset;    /* symbol NULL: address relative to the object's ELF virtual
			     * addresses (its file offset when not ELF); else, and for
			     * "[kernel]", 0 */
	/* The address relative to the object's ELF virtual addresses whether or not a symbol
	 * covers it (the source lines' key: lines.h); has_vaddr false when it is unknown
	 * (a pseudo-object, an unreadable or rebuilt file). */
	uint64_t vaddr;
	bool has_vaddr;
	bool build_id_mismatch; /* the file on disk is not the one that was mapped */
	bool unmapped;		/* no mapping of the task holds the address (kernel:
				 * false): it cannot be a return address */
};

/* The time of the sample the next resolves name (ns, CLOCK_MONOTONIC: the sampler's
 * clock when pmc_sampler_monotonic; 0: unknown), for JIT code a jitdump names: code loaded
 * again at one address is named by the load before the sample (jitdump.h). */
void pmc_maps_at(struct pmc_maps *m, uint64_t time);

/* Resolves address ip of task pid. Strings are owned by m and live until
 * pmc_maps_free(). Return addresses (every frame of a call chain but the leaf) should be
 * passed as ip - 1, so that a call at the end of a function is not taken for the next
 * function. kernel: ip is a kernel address ("[kernel]", named from /proc/kallsyms where
 * the kernel shows its addresses; where not, no symbol and a problem that says why).
 * The vdso is named from this process's own image. */
void pmc_maps_resolve(struct pmc_maps *m, uint32_t pid, uint64_t ip, bool kernel,
		      struct pmc_resolved *ret);

/* The mapping of task pid that holds address ip, for the DWARF unwinder (unwind.h). */
struct pmc_mapping {
	uint64_t start, end, pgoff;
	const char *path; /* the file, or a bracketed name ("[vdso]", "[anon]") */
	bool special;	  /* a bracketed name: no file to read */
	/* The load bias (ip = ELF virtual address + bias), from the file's program headers;
	 * false when the file could not be read, or is not the one that was mapped (its
	 * build-id differs): its CFI would describe other code. */
	bool bias_known;
	uint64_t bias;
};

/* Returns 0, or -ENOENT when no mapping of pid holds ip. Strings live as long as m. */
int pmc_maps_find(struct pmc_maps *m, uint32_t pid, uint64_t ip, struct pmc_mapping *ret);

/* Objects whose symbols could not be loaded, or whose build-id did not match, and the
 * kernel's symbols when they cannot be read, each once: for the profile's notes. */
size_t pmc_maps_problem_count(const struct pmc_maps *m);
const char *pmc_maps_problem(const struct pmc_maps *m, size_t i);
