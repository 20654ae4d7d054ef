/* A profile's flame graph, or the differential one of two profiles: their stacks
 * (profile_report.h) drawn by the SVG renderer (flamegraph.h) under a title that says
 * what was profiled and how. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/annotate.h"
#include "profile/profile.h"
#include "reporters/flamegraph.h"
#include "reporters/format.h"
#include "reporters/profile_annotate.h"
#include "reporters/profile_report.h"

/* The tooltips' notes: the hottest instructions of p's functions with a self share of
 * PMC_ANNOTATE_HOT_SHARE or more (at most PMC_ANNOTATE_HOT_FUNCTIONS), the same
 * annotation as report --annotate's, cut to PMC_ANNOTATE_TOOLTIP_INSNS rows. */
struct notes {
	struct pmc_flame_note *v; /* names of a, texts of texts */
	char **texts;
	size_t n;
	struct pmc_annotation **a;
	size_t na;
};

static void notes_free(struct notes *ns)
{
	for (size_t i = 0; ns->texts && i < ns->na; i++)
		free(ns->texts[i]);
	free(ns->texts);
	free(ns->v);
	pmc_annotations_free(ns->a, ns->na);
	*ns = (struct notes){0};
}

/* Returns 0 or -ENOMEM; a profile without addresses, or objects that cannot be read,
 * has no notes. */
static int notes_make(const struct pmc_profile *p, bool diff, struct notes *ns)
{
	int rc = pmc_profile_annotate_hot(p, PMC_ANNOTATE_HOT_SHARE, PMC_ANNOTATE_HOT_FUNCTIONS,
					  &ns->a, &ns->na);

	if (rc < 0 || !ns->na)
		return rc;
	if (!(ns->v = calloc(ns->na, sizeof(*ns->v))) ||
	    !(ns->texts = calloc(ns->na, sizeof(*ns->texts)))) {
		notes_free(ns);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ns->na; i++) {
		size_t len = 0;
		FILE *m = open_memstream(&ns->texts[i], &len);

		if (!m) {
			notes_free(ns);
			return -ENOMEM;
		}
		rc = pmc_profile_report_annotate_top(m, ns->a[i], PMC_ANNOTATE_TOOLTIP_INSNS,
						     PMC_ANNOTATE_TOP_TOOLTIP,
						     diff ? "the new profile" : NULL);
		if (fclose(m) != 0 || rc < 0) {
			notes_free(ns);
			return -ENOMEM;
		}
		/* An annotation without samples at its instructions says nothing. */
		if (len)
			ns->v[ns->n++] = (struct pmc_flame_note){ns->a[i]->function, ns->texts[i]};
	}
	return 0;
}

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
	struct notes notes = {0};
	char title[256], subtitle[640], lost[400], lost_new[192], lost_old[192] = "";
	char off[PMC_FMT_MAX + 24];
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
	pmc_fmt_weight((double)pmc_profile_total(new_p), in->unit, false, off, sizeof(off));
	if (r < 0 || (r = notes_make(new_p, old_p != NULL, &notes)) < 0) {
		pmc_flame_set_free(set);
		return r;
	}
	snprintf(title, sizeof(title), "%s%s%s%s", old_p ? "Differential " : "",
		 view->inverted ? (old_p ? "icicle graph" : "Icicle graph")
				: (old_p ? "flame graph" : "Flame graph"),
		 in->name ? ": " : "", in->name ? in->name : "");
	if (in->kind == PMC_PROFILE_EXACT)
		n = snprintf(subtitle, sizeof(subtitle), "%s, exact (valgrind)%s", in->event,
			     !old_p	? ""
			     : absolute ? "; red grew, blue shrank (change of the count)"
					: "; red grew, blue shrank (share of the total)");
	else if (pmc_profile_off_cpu(new_p))
		/* Every wait measured, none sampled: no rate, no sampling error. */
		n = snprintf(subtitle, sizeof(subtitle), "%s, %llu waits (%s off CPU)%s%s%s",
			     in->event, (unsigned long long)pmc_profile_samples(new_p), off,
			     lost[0] ? "; " : "", lost,
			     !old_p	? ""
			     : absolute ? "; red grew, blue shrank (change of the time off CPU, "
					  "measured)"
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
		    .notes = notes.v,
		    .nnotes = notes.n,
		    .note_min_share = PMC_ANNOTATE_HOT_SHARE,
		};

		r = pmc_flamegraph_write(out, set->stacks, set->n, &o);
	}
	notes_free(&notes);
	pmc_flame_set_free(set);
	return r;
}
