/* A profile's flame graph, or the differential one of two profiles: their stacks
 * (profile_report.h) drawn by the SVG renderer (flamegraph.h) under a title that says
 * what was profiled and how. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile.h"
#include "reporters/flamegraph.h"
#include "reporters/profile_report.h"

/* The share of p's weight in cut call chains, in percent. */
static double cut_share(const struct pmc_profile *p)
{
	uint64_t total = pmc_profile_total(p);

	return total ? 100.0 * (double)pmc_profile_truncated(p) / (double)total : 0.0;
}

int pmc_profile_flamegraph(FILE *out, const struct pmc_profile *old_p,
			   const struct pmc_profile *new_p, const struct pmc_flame_view *view)
{
	static const struct pmc_flame_view defaults;
	const struct pmc_profile_info *in = pmc_profile_info(new_p);
	struct pmc_flame_set *set = NULL;
	char title[256], subtitle[640], lost[400], lost_new[192], lost_old[192] = "";
	/* Two profiles of one event whose weights are an amount (exact counts, sampled
	 * time) measure the same thing: a frame whose amount did not change is white,
	 * however the others moved its share; a sampled one within sampling error too. */
	enum pmc_profile_diff_mode mode = pmc_profile_diff_mode(old_p, new_p);
	bool absolute = old_p && mode != PMC_PROFILE_DIFF_SHARES;
	int r, n;

	if (!view)
		view = &defaults;
	/* Samples lost move every share: the title says how many, when and how far, of
	 * each profile drawn. */
	pmc_profile_lost_text(new_p, true, lost_new, sizeof(lost_new));
	if (old_p)
		pmc_profile_lost_text(old_p, true, lost_old, sizeof(lost_old));
	snprintf(lost, sizeof(lost), "%s%s%s%s%s", lost_old[0] ? "old profile: " : "", lost_old,
		 lost_old[0] && lost_new[0] ? "; " : "",
		 lost_old[0] && lost_new[0] ? "new profile: " : "", lost_new);
	r = old_p ? pmc_profile_flame_diff_stacks(old_p, new_p, &set)
		  : pmc_profile_flame_stacks(new_p, &set);
	if (r < 0)
		return r;
	snprintf(title, sizeof(title), "%s%s%s%s", old_p ? "Differential " : "",
		 view->inverted ? (old_p ? "icicle graph" : "Icicle graph")
				: (old_p ? "flame graph" : "Flame graph"),
		 in->name ? ": " : "", in->name ? in->name : "");
	if (in->kind == PMC_PROFILE_EXACT)
		n = snprintf(subtitle, sizeof(subtitle), "%s, exact (valgrind)%s", in->event,
			     !old_p	? ""
			     : absolute ? "; red grew, blue shrank (change of the count)"
					: "; red grew, blue shrank (share of the total)");
	else
		n = snprintf(subtitle, sizeof(subtitle), "%s, %llu samples (%llu Hz asked)%s%s%s",
			     in->event, (unsigned long long)in->samples,
			     (unsigned long long)in->freq, lost[0] ? "; " : "", lost,
			     !old_p	? ""
			     : absolute ? (strcmp(in->unit, "ns") == 0
					       ? "; red grew, blue shrank (change of the time; "
						 "white within sampling error)"
					       : "; red grew, blue shrank (change of the weight; "
						 "white within sampling error)")
					: "; red grew, blue shrank (share of the total)");
	/* The weight whose callers are missing: the graph draws it under one root frame. */
	if (n >= 0 && (size_t)n < sizeof(subtitle) &&
	    (pmc_profile_truncated(new_p) || (old_p && pmc_profile_truncated(old_p)))) {
		char *at = subtitle + n;
		size_t room = sizeof(subtitle) - (size_t)n;

		if (old_p)
			snprintf(at, room,
				 "; cut call chains (under " PMC_PROFILE_TRUNCATED_FRAME
				 "): %.3g%% old, %.3g%% new",
				 cut_share(old_p), cut_share(new_p));
		else
			snprintf(at, room,
				 "; %.3g%% of the weight in cut call chains "
				 "(under " PMC_PROFILE_TRUNCATED_FRAME ")",
				 cut_share(new_p));
	}
	{
		struct pmc_flame_opts o = {
		    .title = view->title ? view->title : title,
		    .subtitle = subtitle,
		    .unit = in->unit,
		    .differential = old_p != NULL,
		    .absolute = absolute,
		    .old_per_sample =
			mode == PMC_PROFILE_DIFF_AMOUNTS ? pmc_profile_per_sample(old_p) : 0,
		    .new_per_sample =
			mode == PMC_PROFILE_DIFF_AMOUNTS ? pmc_profile_per_sample(new_p) : 0,
		    .width = view->width,
		    .inverted = view->inverted,
		    .min_width = view->min_width,
		};

		r = pmc_flamegraph_write(out, set->stacks, set->n, &o);
	}
	pmc_flame_set_free(set);
	return r;
}
