/* `report --tree caller|callee` (profile_report.h): a profile's call tree in text, as
 * perf report -g draws it, fitted to the terminal's width. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/profile_tree.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/profile_report.h"
#include "reporters/profile_report_priv.h"
#include "reporters/wrap.h"

/* The guide of one level: a branch goes on below (BAR) or not (GAP). */
enum guide { GAP, BAR };
enum mark { NO_MARK, TEE, ELBOW };

struct ctx {
	FILE *out;
	const struct pmc_profile_tree *t;
	const struct pmc_profile_tree_view *v;
	const char *unit;
	uint64_t total;
	double limit; /* percent */
	bool caller;
	size_t max_units; /* guide levels that fit beside the columns; SIZE_MAX: no limit */
	enum guide *guides;
	size_t nguides;
};

/* Columns before the tree: the shares and the weight. */
#define CALLER_COLS 29 /* "%7s %7s %11s  " */
#define CALLEE_COLS 21 /* "%7s %11s  " */
/* The least room a name keeps beside a deep tree's guides. */
#define NAME_MIN 26 /* "(12 more under 0.5%: 1.23%)" */

static bool shown(const struct ctx *c, uint64_t w)
{
	return w && 100.0 * (double)w / (double)c->total >= c->limit;
}

/* The guides of the levels above, and the node's own mark: levels beyond what fits are
 * left out and counted ("+3 "). */
static void put_guides(const struct ctx *c, enum mark m)
{
	size_t from = 0, n = c->nguides + (m != NO_MARK);

	if (n > c->max_units) {
		/* "+N " stands for N levels, and takes the room of one. */
		from = n - c->max_units + 1;
		fprintf(c->out, "+%-2zu ", from);
	}
	for (size_t i = from; i < c->nguides; i++)
		fputs(c->guides[i] == BAR ? "\xe2\x94\x82  " : "   ", c->out);
	if (m == TEE)
		fputs("\xe2\x94\x9c\xe2\x94\x80 ", c->out);
	else if (m == ELBOW)
		fputs("\xe2\x94\x94\xe2\x94\x80 ", c->out);
}

static void put_columns(const struct ctx *c, const struct pmc_profile_tree_node *x)
{
	char a[PMC_FMT_MAX], b[PMC_FMT_MAX], w[PMC_FMT_MAX + 24];

	pmc_fmt_percent(pct(x->weight, c->total), false, a, sizeof(a));
	pmc_fmt_weight((double)x->weight, c->unit, false, w, sizeof(w));
	if (c->caller) {
		pmc_fmt_percent(pct(x->self, c->total), false, b, sizeof(b));
		fprintf(c->out, "%7s %7s %11s  ", a, b, w);
	} else {
		fprintf(c->out, "%7s %11s  ", a, w);
	}
}

static int put_children(struct ctx *c, size_t i);

/* Node i and what is under it, its mark m; below a chain (one child shown, none left out)
 * the child stays in its parent's column, as perf draws a chain. */
static int put_node(struct ctx *c, size_t i, enum mark m)
{
	const struct pmc_profile_tree_node *x = pmc_profile_tree_node(c->t, i);
	size_t pushed = 0;
	int r;

	put_columns(c, x);
	put_guides(c, m);
	pmc_escape_text(c->out, x->name);
	putc('\n', c->out);
	if (m != NO_MARK) {
		enum guide *g = realloc(c->guides, (c->nguides + 1) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		c->guides = g;
		c->guides[c->nguides++] = m == TEE ? BAR : GAP;
		pushed = 1;
	}
	r = put_children(c, i);
	c->nguides -= pushed;
	return r;
}

static int put_children(struct ctx *c, size_t i)
{
	const struct pmc_profile_tree_node *x = pmc_profile_tree_node(c->t, i);
	size_t nshown = 0, nhidden = 0, k = 0;
	uint64_t hidden = 0;
	int r;

	for (size_t ch = x->first_child; ch != PMC_PROFILE_TREE_NONE;
	     ch = pmc_profile_tree_node(c->t, ch)->next_sibling) {
		const struct pmc_profile_tree_node *y = pmc_profile_tree_node(c->t, ch);

		if (shown(c, y->weight)) {
			nshown++;
		} else {
			nhidden++;
			hidden += y->weight;
		}
	}
	for (size_t ch = x->first_child; ch != PMC_PROFILE_TREE_NONE;
	     ch = pmc_profile_tree_node(c->t, ch)->next_sibling) {
		if (!shown(c, pmc_profile_tree_node(c->t, ch)->weight))
			continue;
		k++;
		r = put_node(c, ch,
			     nshown == 1 && !nhidden ? NO_MARK
			     : k < nshown || nhidden ? TEE
						     : ELBOW);
		if (r < 0)
			return r;
	}
	if (nhidden) {
		char a[PMC_FMT_MAX], l[PMC_FMT_MAX];

		fprintf(c->out, "%*s", c->caller ? CALLER_COLS : CALLEE_COLS, "");
		put_guides(c, ELBOW);
		pmc_fmt_percent(pct(hidden, c->total), false, a, sizeof(a));
		snprintf(l, sizeof(l), "%g%%", c->limit);
		fprintf(c->out, "(%zu more under %s: %s)\n", nhidden, l, a);
	}
	return 0;
}

/* The line above the tree: what it shows and how. */
static void put_heading(const struct ctx *c, unsigned width)
{
	char text[1024], l[PMC_FMT_MAX + 64], tot[PMC_FMT_MAX + 24];
	char *fn = c->v->function ? pmc_escape_text_dup(c->v->function) : NULL;

	if (c->limit > 0)
		snprintf(l, sizeof(l),
			 "; paths under %g%% left out, counted in one line (--percent-limit)",
			 c->limit);
	else
		l[0] = '\0';
	pmc_fmt_weight((double)c->total, c->unit, false, tot, sizeof(tot));
	if (c->caller)
		snprintf(text, sizeof(text),
			 "%s%s: callers above the functions they call (perf report -g caller); "
			 "total%% (with what it calls) and self%% of the profile's %s%s",
			 fn ? "Call tree of " : "Call tree", fn ? fn : "", tot, l);
	else
		snprintf(text, sizeof(text),
			 "%s%s: %s, each with its callers below it (perf report -g callee%s); "
			 "shares of the profile's %s%s",
			 fn ? "Callers of " : "Callers of each function", fn ? fn : "",
			 c->v->children ? "by total weight (with what it calls, each stack once)"
					: "by self weight",
			 c->v->children ? "" : ", --no-children", tot, l);
	free(fn);
	pmc_report_wrap(c->out, text, width);
	putc('\n', c->out);
	if (c->caller)
		fprintf(c->out, "%7s %7s %11s  function\n", "total%", "self%", "total");
	else
		fprintf(c->out, "%7s %11s  function\n", "share", "weight");
}

/* The report's header, wrapped to width. */
static int tree_header(FILE *out, const struct pmc_profile *p, unsigned width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -ENOMEM;
	pmc_profile_report_header(m, p);
	if (fclose(m) != 0) {
		free(text);
		return -ENOMEM;
	}
	pmc_report_wrap(out, text, width);
	free(text);
	return 0;
}

int pmc_profile_report_tree(FILE *out, const struct pmc_profile *p,
			    const struct pmc_profile_tree_view *v)
{
	struct pmc_profile_tree_opts o = {0};
	struct pmc_profile_tree *t = NULL;
	struct ctx c = {.out = out, .v = v};
	size_t cols, entries = 0, shown_entries = 0, top, nhidden = 0;
	uint64_t hidden = 0;
	int rc;

	if (!out || !p || !v)
		return -EINVAL;
	o.kind = v->kind;
	o.function = v->function;
	o.children = v->children;
	rc = pmc_profile_tree_build(p, &o, &t);
	if (rc < 0)
		return rc;
	c.t = t;
	c.unit = pmc_profile_info(p)->unit;
	c.total = pmc_profile_total(p);
	c.limit = v->percent_limit >= 0 ? v->percent_limit : PMC_PROFILE_TREE_LIMIT;
	c.caller = v->kind == PMC_PROFILE_TREE_CALLER;
	cols = c.caller ? CALLER_COLS : CALLEE_COLS;
	c.max_units = v->width && v->width > cols + NAME_MIN + 6 ? (v->width - cols - NAME_MIN) / 3
		      : v->width				 ? 2
								 : SIZE_MAX;
	rc = tree_header(out, p, v->width);
	if (rc < 0)
		goto done;
	if (!c.total) {
		fputs("\nNo samples: nothing to show.\n", out);
		goto done;
	}
	put_heading(&c, v->width);
	top = c.caller ? 0 : v->top;
	/* The entries: the caller tree's roots, or the callee tree's functions. */
	for (size_t e = pmc_profile_tree_node(t, 0)->first_child; e != PMC_PROFILE_TREE_NONE;
	     e = pmc_profile_tree_node(t, e)->next_sibling) {
		if (!shown(&c, pmc_profile_tree_node(t, e)->weight)) {
			nhidden++;
			hidden += pmc_profile_tree_node(t, e)->weight;
			continue;
		}
		entries++;
		if (top && shown_entries == top)
			continue;
		shown_entries++;
		if (shown_entries > 1)
			putc('\n', out);
		rc = put_node(&c, e, NO_MARK);
		if (rc < 0)
			goto done;
	}
	if (nhidden) {
		char a[PMC_FMT_MAX], l[PMC_FMT_MAX];

		pmc_fmt_percent(pct(hidden, c.total), false, a, sizeof(a));
		snprintf(l, sizeof(l), "%g%%", c.limit);
		fprintf(out, "\n(%zu more %s under %s: %s)\n", nhidden,
			c.caller ? (nhidden == 1 ? "root" : "roots")
				 : (nhidden == 1 ? "function" : "functions"),
			l, a);
	}
	if (entries > shown_entries)
		fprintf(out, "\n(%zu more function%s; a larger --top shows them)\n",
			entries - shown_entries, entries - shown_entries == 1 ? "" : "s");
done:
	free(c.guides);
	pmc_profile_tree_free(t);
	return rc < 0 ? rc : finish(out);
}
