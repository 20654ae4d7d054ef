/* Names of JIT code from the jitdump a process writes of itself (docs/profile.md, "Symbols"),
 * the format of perf's tools/perf/util/jitdump.h: a header (magic 0x4A695444 "JiTD",
 * version 1, its size, the ELF machine, the pid, a timestamp, flags) and records, each a
 * prefix (id, size, timestamp) and its body. JIT_CODE_LOAD names code (pid, tid, vma,
 * address, size, index, the name, then the code's bytes); JIT_CODE_MOVE moves it;
 * JIT_CODE_CLOSE ends the file; the others are skipped by their size. A runtime maps its
 * dump PROT_EXEC so that the kernel reports the mapping (a PERF_RECORD_MMAP2 of a file
 * named jit-PID.dump): that is how the recorder finds it. The file grows while the process
 * compiles: a lookup reads what was added since when it may be missing something. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct pmc_jitdump;

/* Whether filename (a mapping's path) is the jitdump of process pid: its last component
 * is jit-PID.dump, as perf requires. */
bool pmc_jitdump_is(const char *filename, uint32_t pid);

/* The dump at path, not read yet. Returns 0, -EINVAL or -ENOMEM. */
int pmc_jitdump_new(const char *path, struct pmc_jitdump **ret);
void pmc_jitdump_free(struct pmc_jitdump *d);

/* The path given to pmc_jitdump_new(). */
const char *pmc_jitdump_path(const struct pmc_jitdump *d);

/* The name of the code at ip at time (ns of CLOCK_MONOTONIC, the clock of the records'
 * timestamps; 0: unknown), or NULL when no code load covers it. Where code was loaded
 * again at the same address, the latest load stamped at or before time names it (without
 * a time, or when the dump's stamps are the CPU's own counter, JITDUMP_FLAGS_ARCH_TIMESTAMP:
 * the latest in the file). A file that is not a regular file of this user or root is
 * never read. The name lives as long as d. */
const char *pmc_jitdump_lookup(struct pmc_jitdump *d, uint64_t ip, uint64_t time);

/* Why the file, or the rest of it, is not read (one line naming the file: not a jitdump,
 * another version or byte order, a broken record), or NULL. */
const char *pmc_jitdump_problem(const struct pmc_jitdump *d);
