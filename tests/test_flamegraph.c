/* Flame graphs (reporters/flamegraph.c, docs/profile.md "Flame graphs"): the SVG read
 * back holds one frame per merged tree node, widths proportional to the weights, children
 * in name order, names escaped so that none can break the document, differential colours
 * by the change of share, and the note on frames too narrow to draw. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "reporters/flamegraph.h"
#include "tests/helpers.h"

#define ST(w, ow, ...)                                                                             \
	{                                                                                          \
		.frames = (const char *const[]){__VA_ARGS__},                                      \
		.depth = sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *),        \
		.weight = (w), .old_weight = (ow)                                                  \
	}

struct frame {
	char title[512];
	double x, y, w;
	unsigned rgb[3];
};

struct svg {
	char *text;
	struct frame f[64];
	size_t n;
};

static int render(struct svg *s, const struct pmc_flame_stack *st, size_t n,
		  const struct pmc_flame_opts *o)
{
	size_t len = 0;
	FILE *m = open_memstream(&s->text, &len);
	assert_non_null(m);
	int r = pmc_flamegraph_write(m, st, n, o);
	assert_int_equal(fclose(m), 0);
	s->n = 0;
	/* Each frame: <g class="f"><title>T</title><rect x=".." y=".." width=".." ...
	 * fill="rgb(r,g,b)"/> */
	for (const char *p = s->text; (p = strstr(p, "<g class=\"f\"><title>")); p++) {
		assert_true(s->n < ARRAY_SIZE(s->f));
		struct frame *f = &s->f[s->n++];
		const char *t = p + strlen("<g class=\"f\"><title>"), *e = strstr(t, "</title>");
		assert_non_null(e);
		assert_true((size_t)(e - t) < sizeof(f->title));
		memcpy(f->title, t, (size_t)(e - t));
		f->title[e - t] = 0;
		assert_int_equal(sscanf(e, "</title><rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", &f->x,
					&f->y, &f->w),
				 3);
		const char *c = strstr(e, "fill=\"rgb(");
		assert_non_null(c);
		assert_int_equal(
		    sscanf(c, "fill=\"rgb(%u,%u,%u)", &f->rgb[0], &f->rgb[1], &f->rgb[2]), 3);
	}
	return r;
}

static struct frame *find(struct svg *s, const char *title_prefix)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strncmp(s->f[i].title, title_prefix, strlen(title_prefix)))
			return &s->f[i];
	fail_msg("no frame titled %s", title_prefix);
	return NULL;
}

static size_t count(const char *text, const char *sub)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, sub)); p += strlen(sub))
		n++;
	return n;
}

static const struct pmc_flame_opts plain = {.title = "T", .unit = "samples", .width = 1200};

/* a;b;c 30, a;b;d 10, a;e 40, x 20: one node per distinct prefix, "all" included. */
static void test_merge_widths_order(void **state)
{
	(void)state;
	struct pmc_flame_stack st[] = {
	    ST(30, 0, "a", "b", "c"),
	    ST(40, 0, "a", "e"),
	    ST(20, 0, "x"),
	    ST(10, 0, "a", "b", "d"),
	};
	struct svg s;
	assert_int_equal(render(&s, st, ARRAY_SIZE(st), &plain), 0);
	assert_int_equal(s.n, 7);			    /* all, a, b, c, d, e, x */
	assert_int_equal(count(s.text, "<rect x="), 7 + 1); /* plus the background */
	struct frame *all = find(&s, "all (100 samples, 100.00%)"),
		     *a = find(&s, "a (80 samples, 80.00%)");
	struct frame *b = find(&s, "b (40 samples"), *c = find(&s, "c (30 samples, 30.00%)");
	struct frame *d = find(&s, "d (10 "), *e = find(&s, "e (40 "), *x = find(&s, "x (20 ");
	double full = 1200 - 20;
	assert_true(fabs(all->w - full) < 0.01);
	assert_true(fabs(a->w - 0.8 * full) < 0.01);
	assert_true(fabs(b->w - 0.4 * full) < 0.01);
	assert_true(fabs(c->w - 0.3 * full) < 0.01);
	assert_true(fabs(d->w - 0.1 * full) < 0.01);
	assert_true(fabs(e->w - 0.4 * full) < 0.01);
	assert_true(fabs(x->w - 0.2 * full) < 0.01);
	/* Children sorted by name, left to right, starting at their parent. */
	assert_true(fabs(a->x - all->x) < 0.01);
	assert_true(fabs(x->x - (a->x + a->w)) < 0.01);
	assert_true(fabs(b->x - a->x) < 0.01);
	assert_true(fabs(e->x - (b->x + b->w)) < 0.01);
	assert_true(fabs(c->x - b->x) < 0.01);
	assert_true(fabs(d->x - (c->x + c->w)) < 0.01);
	/* Root at the bottom, one level up per frame. */
	assert_true(all->y > a->y && a->y > b->y && b->y > c->y);
	assert_true(fabs(c->y - d->y) < 0.01 && fabs(a->y - x->y) < 0.01);
	/* Plain colours are warm and the same for the same name in another graph. */
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.f[i].rgb[0] >= 205 && s.f[i].rgb[2] <= 55);
	unsigned rgb_c[3];
	memcpy(rgb_c, c->rgb, sizeof(rgb_c));
	struct pmc_flame_stack other[] = {ST(5, 0, "z", "c")};
	struct svg s2;
	assert_int_equal(render(&s2, other, 1, &plain), 0);
	assert_memory_equal(find(&s2, "c (5 ")->rgb, rgb_c, sizeof(rgb_c));
	assert_null(strstr(s.text, "id=\"note\""));
	assert_non_null(strstr(s.text, "<script type=\"text/ecmascript\"><![CDATA["));
	assert_non_null(strstr(s.text, "data-omitted=\"0\""));
	free(s.text);
	free(s2.text);
}

/* The same input in another order gives the same bytes. */
static void test_deterministic(void **state)
{
	(void)state;
	struct pmc_flame_stack st1[] = {ST(3, 0, "m", "q"), ST(2, 0, "b"), ST(1, 0, "m", "p")};
	struct pmc_flame_stack st2[] = {ST(1, 0, "m", "p"), ST(3, 0, "m", "q"), ST(2, 0, "b")};
	struct svg s1, s2;
	assert_int_equal(render(&s1, st1, 3, &plain), 0);
	assert_int_equal(render(&s2, st2, 3, &plain), 0);
	assert_string_equal(s1.text, s2.text);
	free(s1.text);
	free(s2.text);
}

static void test_hostile_name(void **state)
{
	(void)state;
	const char *evil = "</svg><script>alert(1)</script>\x1b]0;x\x07&'\"\xff";
	struct pmc_flame_stack st[] = {ST(10, 0, "main", evil)};
	struct pmc_flame_opts o = {
	    .title = "<script>t</script>", .subtitle = "a&b\n", .unit = "<u>"};
	struct svg s;
	assert_int_equal(render(&s, st, 1, &o), 0);
	assert_int_equal(s.n, 3);
	/* The only markup is ours: one <svg>, one </svg>, one <script>. */
	assert_int_equal(count(s.text, "<svg"), 1);
	assert_int_equal(count(s.text, "</svg>"), 1);
	assert_int_equal(count(s.text, "<script"), 1);
	assert_int_equal(count(s.text, "</script>"), 1);
	assert_int_equal(count(s.text, "alert(1)"), 2); /* title and label, as text */
	assert_contains(s.text, "&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;\xef\xbf\xbd]0;x"
				"\xef\xbf\xbd&amp;&#39;&quot;\xef\xbf\xbd (10 &lt;u&gt;, 100.00%)");
	assert_contains(s.text, "&lt;script&gt;t&lt;/script&gt;");
	assert_contains(s.text, "a&amp;b\xef\xbf\xbd</text>");
	/* No control character (but newline) and no byte that is not UTF-8 anywhere. */
	for (const unsigned char *p = (const unsigned char *)s.text; *p; p++) {
		assert_true(*p >= 0x20 || *p == '\n');
		assert_true(*p != 0x7f && *p != 0xff);
	}
	free(s.text);
}

static void test_label_truncated(void **state)
{
	(void)state;
	char longname[300];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	struct pmc_flame_stack st[] = {ST(1, 0, "short"), ST(1, 0, longname)};
	struct svg s;
	assert_int_equal(render(&s, st, 2, &plain), 0);
	struct frame *f = find(&s, "nnnn");
	/* The label ends with ".." and fits the 590 px frame at about 7 px a character. */
	const char *t = strstr(s.text, "nnnn (1 samples, 50.00%)</title>");
	assert_non_null(t);
	const char *label = strstr(t, "\">") + 2, *end = strstr(label, "</text>");
	assert_true(end - label > 10);
	assert_memory_equal(end - 2, "..", 2);
	assert_true((double)(end - label) * 12 * 0.59 <= f->w);
	/* A frame too narrow for three characters has no label. */
	struct pmc_flame_stack st2[] = {ST(1000, 0, "wide"), ST(2, 0, "tiny")};
	struct svg s2;
	assert_int_equal(render(&s2, st2, 2, &plain), 0);
	assert_contains(s2.text, "tiny (2 samples, 0.20%)</title>");
	const char *tl = strstr(s2.text, "tiny (2 samples");
	assert_non_null(strstr(tl, "\"></text></g>"));
	assert_true(strstr(tl, "\"></text></g>") - tl < 200);
	free(s.text);
	free(s2.text);
}

static void test_differential(void **state)
{
	(void)state;
	/* Old: grow 10%, shrink 50%, same 40%; new: grow 40%, shrink 20%, same 40%. The
	 * totals differ (100 and 200): shares, not weights, are compared. */
	struct pmc_flame_stack st[] = {
	    ST(80, 10, "grow"),
	    ST(40, 50, "shrink"),
	    ST(80, 40, "same"),
	};
	struct pmc_flame_opts o = plain;
	o.differential = 1;
	struct svg s;
	assert_int_equal(render(&s, st, 3, &o), 0);
	struct frame *g = find(&s, "grow ("), *sh = find(&s, "shrink ("), *sa = find(&s, "same (");
	assert_int_equal(g->rgb[0], 255);
	assert_true(g->rgb[1] < 100 && g->rgb[2] < 100);
	assert_int_equal(sh->rgb[2], 255);
	assert_true(sh->rgb[0] < 100 && sh->rgb[1] < 100);
	assert_int_equal(sa->rgb[0], 255);
	assert_int_equal(sa->rgb[1], 255);
	assert_int_equal(sa->rgb[2], 255);
	assert_int_equal(find(&s, "all (")->rgb[1], 255); /* the root is always 100% */
	assert_string_equal(g->title, "grow (80 samples, 10.00% \xe2\x86\x92 40.00%, +30.00 pp)");
	assert_string_equal(sh->title,
			    "shrink (40 samples, 50.00% \xe2\x86\x92 20.00%, -30.00 pp)");
	/* Widths are the new weights. */
	assert_true(fabs(g->w - 0.4 * 1180) < 0.01);
	/* A smaller change is paler: half the largest change, half the saturation. */
	struct pmc_flame_stack st2[] = {ST(60, 40, "big"), ST(45, 50, "half"), ST(95, 110, "rest")};
	struct svg s2;
	assert_int_equal(render(&s2, st2, 3, &o), 0);
	/* big: 20% -> 30% (+10), half: 25% -> 22.5% (-2.5), rest: 55% -> 47.5% (-7.5). */
	struct frame *big = find(&s2, "big ("), *half = find(&s2, "half (");
	assert_int_equal(big->rgb[1], 0);
	assert_int_equal(half->rgb[0], 191); /* 255 * (1 - 2.5 / 10) */
	assert_int_equal(half->rgb[2], 255);
	free(s.text);
	free(s2.text);
}

/* Counts of one thing (two exact profiles of one event): a frame whose count did not
 * change is white, however the others moved its share; colours saturate at the largest
 * change of count. The issue: an unchanged "compute" drawn blue beside a grown one. */
static void test_differential_absolute(void **state)
{
	(void)state;
	struct pmc_flame_stack st[] = {
	    ST(1600, 1600, "main", "compute"),
	    ST(800, 400, "main", "grown"),
	    ST(100, 200, "main", "halved"),
	};
	struct pmc_flame_opts o = plain;
	o.differential = 1;
	o.absolute = 1;
	o.unit = "instructions";
	struct svg s;
	assert_int_equal(render(&s, st, 3, &o), 0);
	struct frame *c = find(&s, "compute ("), *g = find(&s, "grown ("),
		     *h = find(&s, "halved (");
	assert_true(c->rgb[0] == 255 && c->rgb[1] == 255 && c->rgb[2] == 255);
	/* Counts with an SI suffix, as the text report writes them. */
	assert_string_equal(c->title, "compute (1.6k instructions, 1.6k \xe2\x86\x92 1.6k, +0)");
	assert_int_equal(g->rgb[0], 255);
	assert_int_equal(g->rgb[1], 0); /* +400, the largest change with main's and all's */
	assert_string_equal(g->title, "grown (800 instructions, 400 \xe2\x86\x92 800, +400)");
	assert_int_equal(h->rgb[2], 255);
	assert_int_equal(h->rgb[0], 191); /* -100: 255 * (1 - 100 / 400) */
	/* main and the root grew by 300: red too. */
	assert_int_equal(find(&s, "main (")->rgb[0], 255);
	assert_true(find(&s, "main (")->rgb[1] < 255);
	assert_non_null(strstr(s.text, "white: unchanged (largest change 400 instructions)"));
	free(s.text);

	/* By share, the same stacks draw compute blue (72.7% -> 64.0%). */
	o.absolute = 0;
	assert_int_equal(render(&s, st, 3, &o), 0);
	c = find(&s, "compute (");
	assert_int_equal(c->rgb[2], 255);
	assert_true(c->rgb[0] < 255);
	free(s.text);
}

/* Sampled time of one event (cpu-clock): amounts too, each frame's change with its
 * sampling interval. hot_a took 100 ms on both sides (400 and 402 samples of 250 us):
 * white, within sampling error, where by share it fell from 50% to 25%; hot_b tripled. */
static void test_differential_sampled_time(void **state)
{
	(void)state;
	struct pmc_flame_stack st[] = {ST(100500000, 100000000, "main", "hot_a"),
				       ST(300000000, 100000000, "main", "hot_b")};
	st[0].samples = 402, st[0].old_samples = 400;
	st[1].samples = 1200, st[1].old_samples = 400;
	struct pmc_flame_opts o = plain;
	o.differential = 1;
	o.absolute = 1;
	o.unit = "ns";
	o.old_per_sample = o.new_per_sample = 250000;
	struct svg s;
	assert_int_equal(render(&s, st, 2, &o), 0);
	struct frame *a = find(&s, "hot_a ("), *b = find(&s, "hot_b (");
	assert_true(a->rgb[0] == 255 && a->rgb[1] == 255 && a->rgb[2] == 255);
	assert_string_equal(a->title, "hot_a (100.5ms, 100ms \xe2\x86\x92 100.5ms, +500us "
				      "[-16.54ms, +17.62ms], within sampling error)");
	assert_int_equal(b->rgb[0], 255);
	assert_true(b->rgb[1] < 255);
	assert_string_equal(b->title, "hot_b (300ms, 100ms \xe2\x86\x92 300ms, +200ms [+170.2ms, "
				      "+231.3ms])");
	assert_non_null(strstr(s.text, "white: unchanged or within sampling error (largest "
				       "change 200.5ms)"));
	free(s.text);
}

static void test_narrow_omitted(void **state)
{
	(void)state;
	/* 1 in 100 000 000 of 1180 px: far under 0.1 px, with its child. */
	struct pmc_flame_stack st[] = {ST(100000000, 0, "big"), ST(1, 0, "speck", "dust")};
	struct svg s;
	assert_int_equal(render(&s, st, 2, &plain), 0);
	assert_int_equal(s.n, 2);
	assert_null(strstr(s.text, "speck"));
	assert_contains(s.text, "2 frames narrower than 0.1 px omitted");
	assert_contains(s.text, "data-omitted=\"2\"");
	free(s.text);
}

static void test_invalid(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct pmc_flame_stack ok[] = {ST(1, 0, "a")};
	struct pmc_flame_stack empty[] = {
	    {.frames = (const char *const[]){"a"}, .depth = 0, .weight = 1}};
	struct pmc_flame_stack null_frame[] = {
	    {.frames = (const char *const[]){NULL}, .depth = 1, .weight = 1}};
	struct pmc_flame_stack overflow[] = {ST(UINT64_MAX, 0, "a"), ST(1, 0, "b")};
	assert_int_equal(pmc_flamegraph_write(m, NULL, 1, &plain), -EINVAL);
	assert_int_equal(pmc_flamegraph_write(m, empty, 1, &plain), -EINVAL);
	assert_int_equal(pmc_flamegraph_write(m, null_frame, 1, &plain), -EINVAL);
	assert_int_equal(pmc_flamegraph_write(m, overflow, 2, &plain), -EINVAL);
	assert_int_equal(pmc_flamegraph_write(m, ok, 1, NULL), -EINVAL);
	struct pmc_flame_opts narrow = plain;
	narrow.width = 119;
	assert_int_equal(pmc_flamegraph_write(m, ok, 1, &narrow), -EINVAL);
	narrow.width = 120;
	narrow.min_width = -1;
	assert_int_equal(pmc_flamegraph_write(m, ok, 1, &narrow), -EINVAL);
	narrow.min_width = NAN;
	assert_int_equal(pmc_flamegraph_write(m, ok, 1, &narrow), -EINVAL);
	assert_int_equal(fclose(m), 0);
	assert_int_equal(len, 0); /* nothing written on failure */
	free(text);
}

/* Nothing to draw (no stacks, no weight, or no old weight in a differential graph) is a
 * valid SVG that says so, as flamegraph.pl answers empty input, never an error. */
static void test_nothing_to_draw(void **state)
{
	(void)state;
	struct pmc_flame_stack ok[] = {ST(1, 0, "a")};
	struct pmc_flame_stack zero[] = {ST(0, 0, "a")};
	struct pmc_flame_opts diff = plain;
	struct svg s = {0};

	diff.differential = 1;
	assert_int_equal(render(&s, NULL, 0, &plain), 0);
	assert_contains(s.text, "<svg ");
	assert_contains(s.text, "No samples: nothing to draw");
	assert_contains(s.text, "</svg>\n");
	assert_int_equal(s.n, 0);
	free(s.text);
	assert_int_equal(render(&s, zero, 1, &plain), 0);
	assert_contains(s.text, "No samples: nothing to draw");
	free(s.text);
	assert_int_equal(render(&s, ok, 1, &diff), 0);
	assert_contains(s.text, "The old profile has no samples: nothing to compare");
	free(s.text);
}

/* Tooltips in the profile's unit, as the text report writes weights: time for ns, counts
 * with an SI suffix and the unit's name (the issue: "419500000 ns"). */
static void test_tooltips_in_unit(void **state)
{
	(void)state;
	struct pmc_flame_stack st[] = {ST(419500000, 0, "main", "hot"), ST(80500000, 0, "cold")};
	struct pmc_flame_opts o = plain;
	struct svg s;

	o.unit = "ns";
	assert_int_equal(render(&s, st, 2, &o), 0);
	assert_string_equal(find(&s, "hot (")->title, "hot (419.5ms, 83.90%)");
	assert_string_equal(find(&s, "all (")->title, "all (500ms, 100.00%)");
	/* The details line, which the script fills with the frame under the pointer. */
	assert_contains(s.text, "<text id=\"details\" x=\"10\"");
	free(s.text);
	o.unit = "instructions";
	st[0].weight = 1201000;
	assert_int_equal(render(&s, st, 2, &o), 0);
	assert_string_equal(find(&s, "hot (")->title, "hot (1.201M instructions, 1.47%)");
	free(s.text);
}

/* Notes (a function's hottest instructions) go into the tooltips of its frames whose
 * share is at least note_min_share, one escaped line after the tooltip's own line, and
 * no other frame's; the script names a frame by its first line. */
static void test_notes_in_tooltips(void **state)
{
	(void)state;
	/* hot: 600 under main (60%), 5 under cold (0.5%); cold 395 of its own. */
	struct pmc_flame_stack st[] = {ST(600, 0, "main", "hot"), ST(5, 0, "cold", "hot"),
				       ST(395, 0, "cold")};
	const struct pmc_flame_note notes[] = {
	    {"hot", "hottest instructions (share of its samples):\n"
		    "   90.0%  11cc  addq %rdi, %rcx  a<b>.c:19 (inner)\n"},
	    {"absent", "never drawn\n"},
	};
	struct pmc_flame_opts o = plain;
	struct svg s;

	o.notes = notes;
	o.nnotes = 2;
	o.note_min_share = 1.0;
	assert_int_equal(render(&s, st, 3, &o), 0);
	assert_string_equal(find(&s, "hot (600")->title,
			    "hot (600 samples, 60.00%)\nhottest instructions (share of its "
			    "samples):\n   90.0%  11cc  addq %rdi, %rcx  a&lt;b&gt;.c:19 (inner)");
	/* The frame under 1% of the graph has no note, nor do the functions without one. */
	assert_string_equal(find(&s, "hot (5 ")->title, "hot (5 samples, 0.50%)");
	assert_string_equal(find(&s, "main (")->title, "main (600 samples, 60.00%)");
	assert_int_equal(count(s.text, "hottest instructions"), 1);
	assert_null(strstr(s.text, "never drawn"));
	assert_contains(s.text, "split('\\n')[0]");
	free(s.text);
	/* A share of 0 puts the note on every frame of the function. */
	o.note_min_share = 0;
	assert_int_equal(render(&s, st, 3, &o), 0);
	assert_int_equal(count(s.text, "hottest instructions"), 2);
	free(s.text);
}

/* --width, --title, --inverted, --min-width and the ignore-case control. */
static void test_options(void **state)
{
	(void)state;
	struct pmc_flame_stack st[] = {ST(60, 0, "a", "b", "c"), ST(30, 0, "a", "d"),
				       ST(10, 0, "x")};
	struct pmc_flame_opts o = plain;
	struct svg s;

	o.width = 600;
	o.title = "My title";
	assert_int_equal(render(&s, st, 3, &o), 0);
	assert_contains(s.text, "width=\"600\"");
	assert_contains(s.text, ">My title</text>");
	assert_true(fabs(find(&s, "all (")->w - 580) < 0.01);
	assert_true(fabs(find(&s, "a (")->w - 0.9 * 580) < 0.01);
	/* A flame graph: the root at the bottom, callees above. */
	assert_true(find(&s, "all (")->y > find(&s, "a (")->y);
	assert_true(find(&s, "a (")->y > find(&s, "b (")->y);
	assert_contains(s.text, "data-inverted=\"0\"");
	assert_contains(s.text, "<text id=\"ic\" class=\"ctl\"");
	free(s.text);

	/* An icicle graph: the root at the top, under the controls, callees below. */
	o.inverted = 1;
	assert_int_equal(render(&s, st, 3, &o), 0);
	assert_contains(s.text, "data-inverted=\"1\"");
	assert_true(fabs(find(&s, "all (")->y - 78) < 0.01);
	assert_true(find(&s, "a (")->y > find(&s, "all (")->y);
	assert_true(find(&s, "c (")->y > find(&s, "b (")->y);
	assert_true(fabs(find(&s, "a (")->w - 0.9 * 580) < 0.01);
	free(s.text);

	/* Frames under 100 px of 580 (x at 58 px, d at 174 px) are left out, and said. */
	o.inverted = 0;
	o.min_width = 100;
	assert_int_equal(render(&s, st, 3, &o), 0);
	assert_null(strstr(s.text, "<title>x ("));
	assert_non_null(strstr(s.text, "<title>d ("));
	assert_contains(s.text, "1 frame narrower than 100 px omitted");
	free(s.text);
	o.min_width = 200;
	assert_int_equal(render(&s, st, 3, &o), 0);
	assert_contains(s.text, "2 frames narrower than 200 px omitted");
	free(s.text);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge_widths_order),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_hostile_name),
	    cmocka_unit_test(test_label_truncated),
	    cmocka_unit_test(test_differential),
	    cmocka_unit_test(test_narrow_omitted),
	    cmocka_unit_test(test_nothing_to_draw),
	    cmocka_unit_test(test_invalid),
	    cmocka_unit_test(test_differential_absolute),
	    cmocka_unit_test(test_differential_sampled_time),
	    cmocka_unit_test(test_tooltips_in_unit),
	    cmocka_unit_test(test_notes_in_tooltips),
	    cmocka_unit_test(test_options),
	};
	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
