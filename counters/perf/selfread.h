/* Reads without a system call (docs/events.md, "Reading the counters"): each event of a
 * group opened on the calling thread has its first page (struct perf_event_mmap_page)
 * mapped; while the kernel lets this thread read the counter (cap_user_rdpmc) and the
 * event is on one (index not 0), its value is the page's offset plus the counter read
 * with rdpmc, sign-extended from pmc_width, and its times the page's plus the time since
 * the page was written (cap_user_time), all under the page's lock sequence count. Used by
 * the counter engine (counters_plain.c); the syscalls and instructions go through struct
 * pmc_sys, so tests can emulate them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pmc_sys;
struct pmc_selfread;

/* Tries before a read whose pages keep changing under it goes to read(). */
#define PMC_SELFREAD_TRIES 16

/* A set of groups to read through their pages, with sys's mmap, munmap, rdpmc and tsc.
 * Returns 0 with *ret, -EOPNOTSUPP when sys cannot (no rdpmc, tsc or mmap), -ENOMEM. */
int pmc_selfread_new(const struct pmc_sys *sys, struct pmc_selfread **ret);

/* Maps the page of each of the n events of a group (leader first; fds and the ids
 * PERF_EVENT_IOC_ID gave) and keeps the group when every page allows rdpmc. Returns 1
 * when kept, 0 when not (nothing stays mapped: a software event, rdpmc not allowed, a
 * mapping refused), or -ENOMEM. */
int pmc_selfread_add(struct pmc_selfread *sr, const int *fds, const uint64_t *ids, size_t n);

/* Reads the group led by leader_fd into buf as read() with PERF_FORMAT_GROUP | ID |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING would: nr, the leader's time_enabled and
 * time_running, then {value, id} for each event. Every page is read within one window of
 * the sequence counts, so the values are of one moment of the group on the PMU. Returns
 * the bytes written, or -EAGAIN when this read must be a read(): a group not kept, an
 * event not on a counter right now (index 0), no cap_user_time, a buffer too short, or
 * pages that kept changing. */
ssize_t pmc_selfread_group(struct pmc_selfread *sr, int leader_fd, uint64_t *buf, size_t len);

/* Whether the group led by leader_fd was kept (pmc_selfread_add): its reads go through
 * the pages, unless one of them says otherwise at that moment. */
bool pmc_selfread_kept(const struct pmc_selfread *sr, int leader_fd);

/* After PERF_EVENT_IOC_RESET of the groups: until the kernel writes a page again, reads of
 * its group are read()s. kernel/events/core.c's _perf_event_reset() reads the event
 * (perf_event_read(): on x86, x86_perf_event_update() sets prev_count to the counter as
 * rdpmc gives it, zero-extended) and writes the page (perf_event_update_userpage(): offset
 * = count - prev_count), while a counter armed by x86_perf_event_set_period() holds -left,
 * sign-extended in prev_count, top bit set: offset + the counter sign-extended is then
 * 2^pmc_width too low, until the event is put on a counter again (x86_pmu_start() arms it
 * and writes the page). Waiting for that write costs a read() per read in between and
 * nothing to a reset of stopped groups (the next enable writes the page); resetting
 * through disable, reset and enable would cost two more ioctls at every reset, and
 * would need to know which groups were enabled. */
void pmc_selfread_hold(struct pmc_selfread *sr);

/* Unmaps every page and frees sr. Accepts NULL. */
void pmc_selfread_free(struct pmc_selfread *sr);

/* The counter as the page defines it: offset + raw sign-extended from width bits
 * (1..64). */
uint64_t pmc_selfread_extend(uint64_t offset, uint64_t raw, unsigned width);

/* The page's time since it was written: time_offset + cyc * mult >> shift, computed as
 * the uapi header's quotient and remainder so the product cannot overflow (shift at most
 * 32). */
uint64_t pmc_selfread_delta(uint64_t cyc, uint64_t time_offset, uint32_t mult, uint16_t shift);
