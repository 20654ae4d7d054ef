/* Names of JIT code from the perf map a process writes of itself, /tmp/perf-PID.map
 * (docs/profile.md, "Symbols"): a text file of "START SIZE NAME" lines, START and SIZE in
 * hex, as perf reads it for the anonymous executable memory of process PID (Python 3.12's
 * -X perf, node's --perf-basic-prof, Java agents). The file grows while the process
 * compiles: a lookup that misses reads what was added since. */
#pragma once

#include <stdint.h>

struct pmc_jit_map;

/* The map of process pid, in dir (NULL: "/tmp"), not read yet. Returns 0 or -ENOMEM. */
int pmc_jit_map_new(uint32_t pid, const char *dir, struct pmc_jit_map **ret);
void pmc_jit_map_free(struct pmc_jit_map *j);

/* The name of the code at ip, or NULL: no line of the file covers it (or there is no file,
 * or it is not a regular file owned by this user or root, as perf requires). The latest
 * line wins where two cover ip (code compiled again at the same address). The name lives
 * as long as j. */
const char *pmc_jit_map_lookup(struct pmc_jit_map *j, uint64_t ip);
