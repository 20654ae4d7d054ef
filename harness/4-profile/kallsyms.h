/* The kernel's function symbols, from /proc/kallsyms (proc(5)), so that the kernel's part
 * of a call chain is named by function as perf names it. The kernel shows the addresses
 * only to whom kernel.kptr_restrict allows (0: everyone with perf_event_paranoid <= 1;
 * 1: CAP_SYSLOG; 2: nobody): elsewhere every address reads 0, and the table is refused
 * with the reason. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_kallsyms;

/* Reads the text symbols (t, T, w, W) of the kallsyms file at path (NULL:
 * "/proc/kallsyms") into *ret. Returns 0; -errno of open or read; -EPERM when the file
 * hides the addresses (all 0); -ENOENT when it has no text symbol; -ENOMEM. On failure
 * one line in why: the reason, for a note saying why kernel frames are not named. */
int pmc_kallsyms_load(const char *path, struct pmc_kallsyms **ret, char *why, size_t whylen);

/* The function of the kernel holding addr, or NULL: the last symbol at or below it, up to
 * the next symbol (the last one covers a page). */
const char *pmc_kallsyms_lookup(const struct pmc_kallsyms *k, uint64_t addr);

void pmc_kallsyms_free(struct pmc_kallsyms *k);
