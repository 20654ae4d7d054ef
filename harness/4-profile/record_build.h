/* Building a sampled profile while the command runs (docs/profile.md, "Recording"): the
 * sampler's records are taken as soon as their order is known (pmc_sampler_flush) and
 * turned into stacks of names at once, so that a recording keeps in memory its distinct
 * stacks and the records of the last two polls, never every sample of the run.
 *
 *	pmc_profile_builder_new(s, &so, "cpu-clock", name, &b);
 *	while (running) { pmc_sampler_poll(s, 50); pmc_profile_builder_take(b, s, false); }
 *	pmc_sampler_poll(s, 0); pmc_profile_builder_take(b, s, true);
 *	p = pmc_profile_builder_finish(b, s, note, ud);
 *	pmc_profile_builder_free(b);
 */
#pragma once

#include <stdbool.h>

struct pmc_maps;
struct pmc_profile;
struct pmc_profile_builder;
struct pmc_sample_opts;
struct pmc_sampler;

/* A builder of the profile of the samples of s, opened with so (which must outlive the
 * builder: the call graph and the stack copy's size), of event (its name as the profile
 * gives it, ":u" when kernel samples were refused) and name (may be NULL). Returns 0,
 * -ENOMEM or -EINVAL. */
int pmc_profile_builder_new(struct pmc_sampler *s, const struct pmc_sample_opts *so,
			    const char *event, const char *name, struct pmc_profile_builder **ret);

/* Reads now what naming the first samples would read (the kernel's symbols, unless
 * kernel samples were refused), so that it is not read in the middle of the recording. */
void pmc_profile_builder_prepare(struct pmc_profile_builder *b);

/* The address spaces the builder names samples through, to seed a running process's
 * (pmc_maps_load_proc) before its first records are taken. */
struct pmc_maps *pmc_profile_builder_maps(struct pmc_profile_builder *b);

/* Takes the records of s whose order is known (all: every one, after the last poll) into
 * the profile. Returns 0, or -ENOMEM, -EOVERFLOW, -EINVAL from the profile. */
int pmc_profile_builder_take(struct pmc_profile_builder *b, struct pmc_sampler *s, bool all);

/* The profile, with the sampler's counts (samples, lost, throttled) and the frames left
 * unnamed; the problems met naming samples are passed to note once each (may be NULL).
 * The caller owns the profile; the builder is then only to be freed. */
struct pmc_profile *pmc_profile_builder_finish(struct pmc_profile_builder *b, struct pmc_sampler *s,
					       void (*note)(const char *, void *), void *note_ud);

void pmc_profile_builder_free(struct pmc_profile_builder *b);
