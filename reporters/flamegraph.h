/* Flame graphs as one self-contained SVG (docs/profile.md, "Flame graphs"): the stacks
 * of a profile merged into a tree, each frame a rectangle as wide as its total weight,
 * with an embedded script for search (highlight and the matched share) and zoom (click a
 * frame, reset), and no external file or script. A differential flame graph takes two
 * weights per stack: widths are the new profile's, colours the change of each frame's
 * share of the total, red for grown and blue for shrunk (Gregg's differential flame
 * graphs, normalized by each profile's total), or, for counts of one thing (absolute),
 * the change of its weight (white within sampling error). Rendering only: the caller's profile is
 * turned into these stacks by reporters/profile_report.c. */
#pragma once

#include <stdint.h>
#include <stdio.h>

struct pmc_flame_stack {
	const char *const *frames; /* display names, root first */
	uint32_t depth;
	uint64_t weight;	       /* plain graph; the new weight of a differential one */
	uint64_t old_weight;	       /* differential only */
	uint64_t samples, old_samples; /* sampled profiles: the samples of each weight */
};

/* Lines added to the tooltip of the frames of one function (docs/profile.md, "Flame
 * graphs": its hottest instructions), after the tooltip's own line. */
struct pmc_flame_note {
	const char *name; /* the frames' display name */
	const char *text; /* lines, each ended by '\n'; escaped into the SVG */
};

/* The narrowest graph: the margins and room for a frame. */
#define PMC_FLAME_MIN_WIDTH 120

struct pmc_flame_opts {
	const char *title;    /* escaped into the SVG */
	const char *subtitle; /* event, unit and counts; may be NULL */
	const char *unit;     /* unit of the weights, in each frame's tooltip */
	int differential;     /* use old_weight for the colours */
	int absolute;	      /* differential: colour by the change of weight (new - old), for
			       * two profiles of one event whose weights are an amount, not
			       * by the change of share */
	/* absolute and sampled: what one sample of each profile stands for
	 * (pmc_profile_per_sample); a change within sampling error is white. 0: exact */
	double old_per_sample, new_per_sample;
	unsigned width;	  /* pixels; 0: 1200 */
	int inverted;	  /* an icicle graph: the root at the top, callees below */
	double min_width; /* frames narrower than this many pixels are left out; 0: 0.1
			   * (flamegraph.pl's --minwidth) */
	/* Notes for the tooltips of frames whose total weight is at least note_min_share
	 * percent of the graph's (so that a function on many small stacks adds its note
	 * to the frames one can point at only); one per name. */
	const struct pmc_flame_note *notes;
	size_t nnotes;
	double note_min_share;
};

/* Writes the SVG to out; with no weight to draw (no stacks, a total weight of 0, old
 * weights all 0 in a differential graph) an SVG that says so. Returns 0, -EINVAL (depth
 * 0, a NULL frame, a weight that overflows, a width under PMC_FLAME_MIN_WIDTH, a
 * min_width that is negative or not finite), -ENOMEM or -EIO. Nothing is written on
 * -EINVAL or -ENOMEM. */
int pmc_flamegraph_write(FILE *out, const struct pmc_flame_stack *stacks, size_t n,
			 const struct pmc_flame_opts *o);
