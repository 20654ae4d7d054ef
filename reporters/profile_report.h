/* Everything that shows a profile (harness/4-profile/profile.h) but the SVG renderer:
 * the text report, folded stacks, the diff of two profiles, the attribution of a metric's
 * change, and the stacks the flame graphs draw (docs/profile.md). Functions are named
 * as pmc_profile_frame_name() names them, so an unresolved address is a function of its
 * own, "OBJECT+0xOFFSET". Text is escaped for its output: control characters never
 * reach a terminal, a log or a Markdown table. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/profile_tasks.h"
#include "profile/profile_tree.h"
#include "reporters/flamegraph.h"

struct pmc_profile;

/* The report of one profile: a header (event, unit, sampled or exact, samples, a
 * warning line for lost samples, unresolved frames, the weight in cut call chains when
 * there is any, total) and the top functions by self
 * weight (self%, total%, self in the profile's unit, function, object); top 0: all.
 * by_total: by total weight instead (perf report --children). Returns 0, -ENOMEM or
 * -EIO. */
int pmc_profile_report_text_by(FILE *out, const struct pmc_profile *p, size_t top, bool by_total);

/* The report's parts, for the views by task (profile_tasks_report.c): its header without the
 * "Total:" line, and the table of p's top functions (shares of p's total) with its
 * heading, or nothing when p has no weight. Returns 0, -ENOMEM or -EIO. */
void pmc_profile_report_header(FILE *out, const struct pmc_profile *p);
int pmc_profile_report_functions(FILE *out, const struct pmc_profile *p, size_t top);

/* `report --by comm|pid|tid` (profile_tasks_report.c): the header, one row per thread name,
 * process or thread (share of the total weight, weight, samples, pid, tid or threads,
 * names), heaviest first, then each one's top functions (top 0: all) with shares of its
 * own weight. A profile that keeps no tasks (exact profiles, older files, imported ones)
 * says "Tasks: not kept" and why, and shows no rows. Returns 0, -ENOMEM or -EIO. */
int pmc_profile_report_tasks(FILE *out, const struct pmc_profile *p, enum pmc_profile_by by,
			     size_t top);

/* `report --tree caller|callee` (profile_tree_report.c): the header, then the call tree
 * of pmc_profile_tree_build(), each line its shares of the profile's total (caller: total%
 * and self%; callee: the weight through that path), its weight and the function under
 * the guides of its level; a chain of single children stays in one column, as perf draws
 * it; a node's children under percent_limit are one line that counts them; guides deeper
 * than width allows are counted ("+3"). Returns 0, -ENOENT (function on no stack),
 * -EINVAL, -ENOMEM or -EIO. */
#define PMC_PROFILE_TREE_LIMIT 0.5 /* percent, perf report -g's default threshold */
struct pmc_profile_tree_view {
	enum pmc_profile_tree_kind kind;
	const char *function; /* NULL: every function */
	bool children;	      /* callee tree: entries by total weight (perf's --children) */
	double percent_limit; /* paths under this share (percent) left out; < 0: the default */
	size_t top;	      /* callee tree: entries shown; 0: all */
	unsigned width;	      /* the terminal's columns; 0: no limit */
};
int pmc_profile_report_tree(FILE *out, const struct pmc_profile *p,
			    const struct pmc_profile_tree_view *v);

/* Folded stacks, one "root;child;leaf WEIGHT" line per distinct sequence of display
 * names (the flame graph tools' input), sorted bytewise; ';' inside a name becomes ':'
 * and control characters spaces, so that each line splits back into the same frames.
 * Stacks whose call chain was cut start with PMC_PROFILE_TRUNCATED_FRAME. Stacks of
 * weight 0 are left out. Returns 0, -ENOMEM or -EIO. */
int pmc_profile_report_folded(FILE *out, const struct pmc_profile *p);

/* `report --diff OLD NEW`: the functions that changed most, top 0: all, as
 * pmc_profile_diff_mode() compares them. Two exact profiles of one event: old and new
 * self counts and the change, the unchanged functions counted in one line; two sampled
 * profiles of one event: old and new self time (or weight), the change and its 95%
 * interval, "~" within sampling error; any other pair: old%, new% and the delta in
 * percentage points. Returns 0, -EINVAL (an empty profile: no shares),
 * -ENOMEM or -EIO. */
int pmc_profile_report_diff(FILE *out, const struct pmc_profile *old_p,
			    const struct pmc_profile *new_p, size_t top);

/* A short block saying where a metric's change went (pmc_profile_attribute), only when
 * both profiles are of that metric (pmc_profile_fits_metric); else one line saying no
 * profile of it exists. One line "instructions +3.20% (1.000M -> 1.032M): 91.0% in
 * parse_header, 7.0% in memcpy, ..." with up to top functions (0: 5) by the size of
 * their part: the findings only (sampled: with their 95% intervals, then a line with the
 * samples; "too few samples to say where" when there is none). Then the share of cut
 * call chains when there are any. As text, or as Markdown (a line and a table) when
 * markdown is set. unit is the metric's (format.h's units; may be NULL). Headed by change,
 * the comparison's own statement of the change (its estimate and interval, as the table
 * prints it: "+13.0% [+5.21%, +15.4%]"), so that a report states one change with one
 * number; NULL: the change of old_value to new_value. Returns 0, -EDOM (no change),
 * -EINVAL, -ENOMEM or -EIO. */
int pmc_profile_report_attribution_of(FILE *out, const struct pmc_profile *old_p,
				      const struct pmc_profile *new_p, const char *metric,
				      const char *unit, double old_value, double new_value,
				      const char *change, size_t top, bool markdown);

/* One sentence (no newline) saying how much of p's weight is in stacks whose call chain
 * was cut and what that means, for a caller that says it on its own line: e.g. "96.5% of
 * the weight is in cut call chains (...)". Writes nothing and returns 0 when no stack was
 * cut, else 1. */
int pmc_profile_report_truncated(FILE *out, const struct pmc_profile *p);

/* One sentence (no newline) into buf saying how many samples p lost, when in the
 * recording (bunched at the start, in another tenth, or spread, from its timeline) and
 * how far that may move a share; brief: the short form for a title. Empty, returning 0,
 * when none was lost; else its length. */
size_t pmc_profile_lost_text(const struct pmc_profile *p, bool brief, char *buf, size_t len);

/* Stacks for reporters/flamegraph.h, with the storage of their names. */
struct pmc_flame_set {
	struct pmc_flame_stack *stacks;
	size_t n;
	/* private: the names and frame arrays the stacks point into */
	char **names;
	size_t nnames;
	const char **frames;
};

/* One profile's stacks as flame graph stacks: frames by display name, root first;
 * stacks with the same names merged (unresolved addresses of one object are one frame);
 * none for an empty profile. Returns 0, -EINVAL or -ENOMEM. */
int pmc_profile_flame_stacks(const struct pmc_profile *p, struct pmc_flame_set **ret);

/* A differential graph's stacks: weight from new_p, old_weight from old_p, matched by
 * identical sequences of display names (so builds in different directories match); a
 * stack only in old_p has weight 0. Returns 0, -EINVAL or -ENOMEM. */
int pmc_profile_flame_diff_stacks(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
				  struct pmc_flame_set **ret);

void pmc_flame_set_free(struct pmc_flame_set *s);

/* How a flame graph is drawn (report --svg's options); NULL or zeros: the defaults. */
struct pmc_flame_view {
	const char *title; /* NULL: "Flame graph: NAME" ("Icicle graph" when inverted) */
	unsigned width;	   /* pixels; 0: 1200 */
	bool inverted;	   /* an icicle graph: the root at the top */
	double min_width;  /* frames narrower than this many pixels are left out; 0: 0.1 */
};

/* The flame graph of new_p as one SVG (flamegraph.h), or with old_p the differential one
 * (widths from new_p, colours from the change of each frame's weight for two profiles of
 * one event, white within sampling error, else of its share), titled with the
 * profile's name, event and samples (profile_flame.c), drawn as view says (may be NULL);
 * an empty profile's graph says it has nothing to draw. Returns 0, -EINVAL, -ENOMEM or
 * -EIO. */
int pmc_profile_flamegraph(FILE *out, const struct pmc_profile *old_p,
			   const struct pmc_profile *new_p, const struct pmc_flame_view *view);
