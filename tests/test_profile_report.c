/* The reports of profiles (reporters/profile_report.h): the exact text of folded stacks
 * (sorted, names escaped, ';' replaced, unknown frames of one object merged), the text
 * report's header (lost samples shown) and rows, the diff, the attribution block and its
 * top entry, and the flame graph stacks, plain and differential, matched by name. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "profile/profile.h"
#include "reporters/profile_report.h"
#include "tests/helpers.h"

static struct pmc_profile *new_profile(enum pmc_profile_kind kind)
{
	struct pmc_profile_info in = {.kind = kind,
				      .event = kind == PMC_PROFILE_EXACT ? "Ir" : "cpu-clock",
				      .unit = kind == PMC_PROFILE_EXACT ? "instructions" : "ns",
				      .name = "bench/parse",
				      .freq = kind == PMC_PROFILE_EXACT ? 0 : 4000};
	struct pmc_profile *p = NULL;

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	return p;
}

/* Adds a stack, root first; "?OBJ+OFF" is an unresolved frame of OBJ; cut: its call
 * chain was cut (truncated). */
static void vadd(struct pmc_profile *p, bool cut, const char *obj, uint64_t w, int depth,
		 va_list ap)
{
	uint32_t ids[16];

	for (int i = 0; i < depth; i++) {
		const char *s = va_arg(ap, const char *);

		if (s[0] == '?') {
			char o[64];
			unsigned long off;
			const char *plus = strchr(s, '+');

			snprintf(o, sizeof(o), "%.*s", (int)(plus - s - 1), s + 1);
			off = strtoul(plus + 1, NULL, 0);
			assert_int_equal(pmc_profile_frame_id(p, NULL, o, off, &ids[i]), 0);
		} else {
			assert_int_equal(pmc_profile_frame_id(p, s, obj, 0, &ids[i]), 0);
		}
	}
	assert_int_equal(pmc_profile_add(p, ids, (uint32_t)depth, w, 1, cut), 0);
}

static void add(struct pmc_profile *p, const char *obj, uint64_t w, int depth, ...)
{
	va_list ap;

	va_start(ap, depth);
	vadd(p, false, obj, w, depth, ap);
	va_end(ap);
}

static void add_cut(struct pmc_profile *p, const char *obj, uint64_t w, int depth, ...)
{
	va_list ap;

	va_start(ap, depth);
	vadd(p, true, obj, w, depth, ap);
	va_end(ap);
}

/* Runs a writer into memory. */
#define CAPTURE(buf, call)                                                                         \
	do {                                                                                       \
		size_t len_;                                                                       \
		FILE *out = open_memstream(&(buf), &len_);                                         \
		assert_non_null(out);                                                              \
		assert_int_equal((call), 0);                                                       \
		fclose(out);                                                                       \
	} while (0)

static void folded(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	char *text = NULL;

	(void)state;
	add(p, "/bin/x", 5, 3, "main", "parse", "memcpy");
	add(p, "/bin/x", 2, 2, "main", "?/lib/libc.so.6+0x10");
	add(p, "/bin/x", 3, 2, "main", "?/lib/libc.so.6+0x20");
	add(p, "/bin/x", 4, 2, "main", "a;b\nc");
	add(p, "/bin/x", 0, 2, "main", "zero");
	add(p, "/bin/x", 1, 1, "main");
	CAPTURE(text, pmc_profile_report_folded(out, p));
	assert_string_equal(text, "main 1\n"
				  "main;a:b c 4\n"
				  "main;libc.so.6+0x10 2\n"
				  "main;libc.so.6+0x20 3\n"
				  "main;parse;memcpy 5\n");
	free(text);
	pmc_profile_free(p);
}

static void text_report(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	char *text = NULL;

	(void)state;
	add(p, "/bin/x", 6000000, 3, "main", "parse", "parse");
	add(p, "/bin/x", 3000000, 2, "main", "?/lib/libc.so.6+0x10");
	add(p, "/bin/x", 1000000, 2, "main", "evil\x1b[2J");
	pmc_profile_set_counts(p, 2500, 25, 750);
	CAPTURE(text, pmc_profile_report_text_by(out, p, 2, false));
	assert_contains(text, "Profile of bench/parse: cpu-clock (ns), sampled (4000 Hz asked)");
	assert_contains(text, "Samples: 2,500, lost: 25\n");
	assert_contains(text, "WARNING: 25 samples lost (0.99% of those taken)");
	assert_null(strstr(text, "throttled"));
	free(text);
	text = NULL;
	pmc_profile_set_throttled(p, 2);
	CAPTURE(text, pmc_profile_report_text_by(out, p, 2, false));
	assert_contains(text, "WARNING: the kernel throttled sampling 2 times");
	assert_contains(text, "Unresolved frames: 750");
	assert_contains(text, "Total: 10ms in 3 stacks, 4 functions");
	assert_contains(text, "  self%  total%       self  function        object\n");
	assert_contains(text, " 60.0%   60.0%        6ms  parse           /bin/x\n");
	assert_contains(text, " 30.0%   30.0%        3ms  libc.so.6+0x10  /lib/libc.so.6\n");
	assert_contains(text, "(2 more functions");
	assert_null(strstr(text, "evil"));
	/* No timeline kept (an older file): how many and how far a share may move, and
	 * that when is not known. */
	assert_contains(text, "when is not known");
	assert_contains(text, "every share may be off by up to 0.99 points");
	free(text);
	text = NULL;
	/* Lost bunched at the start: the tenth, its span and the share of its samples
	 * lost, then every tenth's. */
	{
		struct pmc_profile_timeline t = {
		    .span_ns = 2000000000,
		    .samples = {75, 250, 250, 250, 250, 250, 250, 250, 250, 425},
		    .lost = {20, 5}};

		pmc_profile_set_timeline(p, &t);
	}
	CAPTURE(text, pmc_profile_report_text_by(out, p, 2, false));
	assert_contains(text, "WARNING: 25 samples lost (0.99% of those taken); most at the start: "
			      "20 of them in the first tenth of the recording (its first 200ms), "
			      "where 21.1% of the samples were lost");
	assert_contains(text, "Lost per tenth of the recording (200ms each): 21.1% 1.96% 0.00%");
	free(text);
	text = NULL;
	{
		char brief[256];

		assert_true(pmc_profile_lost_text(p, true, brief, sizeof(brief)) > 0);
		assert_string_equal(brief, "25 samples lost (0.99% of those taken), most in its "
					   "first tenth (21.1% of it): shares may be off by up "
					   "to 0.99 points");
	}

	CAPTURE(text, pmc_profile_report_text_by(out, p, 0, false));
	assert_contains(text, "evil [2J");
	assert_null(strchr(text, '\x1b'));
	assert_contains(text, "  0.00%    100%");
	free(text);
	pmc_profile_free(p);

	/* Exact: no sampling lines, no warning. */
	p = new_profile(PMC_PROFILE_EXACT);
	add(p, "/bin/x", 1000, 2, "main", "f");
	add(p, "/bin/x", 1200000, 2, "main", "g");
	CAPTURE(text, pmc_profile_report_text_by(out, p, 0, false));
	assert_contains(text, "Ir (instructions), exact");
	/* Counts with an SI suffix and their unit, never "1.201e+06 instructions". */
	assert_contains(text, "Total: 1.201M instructions in 2 stacks");
	assert_contains(text, " 1.2M instructions  g ");
	assert_contains(text, "   1k instructions  f ");
	assert_null(strstr(text, "e+0"));
	assert_null(strstr(text, "Samples"));
	assert_null(strstr(text, "WARNING"));
	free(text);
	pmc_profile_free(p);
}

static void make_pair(struct pmc_profile **o, struct pmc_profile **n)
{
	*o = new_profile(PMC_PROFILE_EXACT);
	*n = new_profile(PMC_PROFILE_EXACT);
	add(*o, "/old/bin", 700, 2, "main", "parse_header");
	add(*o, "/old/bin", 300, 2, "main", "memcpy");
	add(*n, "/new/bin", 990, 2, "main", "parse_header");
	add(*n, "/new/bin", 310, 2, "main", "memcpy");
}

/* A sampled stack of k samples. */
static void add_k(struct pmc_profile *p, uint64_t k, const char *fn)
{
	uint32_t ids[2];

	assert_int_equal(pmc_profile_frame_id(p, "main", "/bin/x", 0, &ids[0]), 0);
	assert_int_equal(pmc_profile_frame_id(p, fn, "/bin/x", 0, &ids[1]), 0);
	assert_int_equal(pmc_profile_add(p, ids, 2, k * 250000, k, false), 0);
}

static void diff_report(void **state)
{
	struct pmc_profile *o, *n;
	char *text = NULL;

	(void)state;
	/* Exact counts of one event: by the change of the count, the unchanged counted. */
	make_pair(&o, &n);
	add(n, "/new/bin", 100, 2, "main", "new_fn");
	CAPTURE(text, pmc_profile_report_diff(out, o, n, 0));
	assert_string_equal(text, "Profile diff: Ir (instructions), exact: functions by the change "
				  "of their self count\n"
				  "\n"
				  "       old        new     change  function\n"
				  "       700        990       +290  parse_header\n"
				  "         -        100       +100  new_fn\n"
				  "       300        310        +10  memcpy\n"
				  "(1 function unchanged)\n"
				  "change: new minus old self count (exact); -: no self weight in "
				  "that profile\n");
	free(text);
	CAPTURE(text, pmc_profile_report_diff(out, o, n, 1));
	assert_contains(text, "+290  parse_header\n(2 more functions changed)\n");
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);

	/* Sampled profiles of two events: shares, as their weights are of two things. */
	o = new_profile(PMC_PROFILE_SAMPLED);
	{
		struct pmc_profile_info in = {
		    .kind = PMC_PROFILE_SAMPLED, .event = "task-clock", .unit = "ns"};

		assert_int_equal(pmc_profile_new(&in, &n), 0);
	}
	add(o, "/old/bin", 700, 2, "main", "parse_header");
	add(o, "/old/bin", 300, 2, "main", "memcpy");
	add(n, "/new/bin", 990, 2, "main", "parse_header");
	add(n, "/new/bin", 310, 2, "main", "memcpy");
	add(n, "/new/bin", 100, 2, "main", "new_fn");
	CAPTURE(text, pmc_profile_report_diff(out, o, n, 0));
	/* parse_header 70% -> 70.7%, memcpy 30% -> 22.1%, new_fn 0 -> 7.14% */
	assert_contains(text, "   old%    new%     delta  function\n");
	assert_contains(text, " 30.0%   22.1%     -7.86  memcpy\n");
	assert_contains(text, "      -   7.14%     +7.14  new_fn\n");
	assert_contains(text, " 70.0%   70.7%     +0.71  parse_header\n");
	assert_true(strstr(text, "memcpy") < strstr(text, "new_fn"));
	assert_true(strstr(text, "new_fn") < strstr(text, "parse_header"));
	/* main is only ever a caller: no self weight on either side, no "- - +0.00" row. */
	assert_null(strstr(text, "main"));
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);

	/* Two time profiles of one event: by the change of time, the one that grew first,
	 * the one whose time did not change (its share fell 22.6 points) marked "~". */
	o = new_profile(PMC_PROFILE_SAMPLED);
	n = new_profile(PMC_PROFILE_SAMPLED);
	add_k(o, 400, "hot_a");
	add_k(o, 400, "hot_b");
	add_k(n, 402, "hot_a");
	add_k(n, 1200, "hot_b");
	CAPTURE(text, pmc_profile_report_diff(out, o, n, 0));
	assert_string_equal(
	    text, "Profile diff: cpu-clock (ns), sampled: functions by the change of their self "
		  "time, those within sampling error last\n"
		  "\n"
		  "       old        new     change  interval                function\n"
		  "     100ms      300ms     +200ms  [+170.2ms, +231.3ms]    hot_b\n"
		  "     100ms    100.5ms     +500us  [-16.54ms, +17.62ms] ~  hot_a\n"
		  "change: new minus old self time, with its 95% interval from the samples "
		  "(Poisson counts); ~: within sampling error (the interval holds 0), "
		  "unchanged; -: no self weight in that profile\n");
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);

	/* Two off-CPU profiles: by the change of each function's total time off CPU, exact;
	 * the unchanged counted. */
	{
		struct pmc_profile_info in = {
		    .kind = PMC_PROFILE_SAMPLED, .event = "off-cpu", .unit = "ns"};

		assert_int_equal(pmc_profile_new(&in, &o), 0);
		assert_int_equal(pmc_profile_new(&in, &n), 0);
	}
	add(o, "/bin/w", 200000000, 3, "main", "waits_here", "schedule");
	add(o, "/bin/w", 10000000, 3, "main", "waits_less", "schedule");
	add(n, "/bin/w", 400000000, 3, "main", "waits_here", "schedule");
	add(n, "/bin/w", 10000000, 3, "main", "waits_less", "schedule");
	CAPTURE(text, pmc_profile_report_diff(out, o, n, 2));
	assert_string_equal(
	    text, "Profile diff: off-cpu (ns), measured: functions by the change of their time off "
		  "CPU (total, with what they call)\n"
		  "\n"
		  "       old        new     change  function\n"
		  "     210ms      410ms     +200ms  main\n"
		  "     210ms      410ms     +200ms  schedule\n"
		  "(1 more functions changed)\n"
		  "(1 function unchanged)\n"
		  "change: new minus old time off CPU of the stacks through the function (with "
		  "what it calls: the self time of a wait is the kernel's schedule), measured "
		  "wait by wait, not sampled: no sampling error, though two runs differ by their "
		  "own noise; -: not on a stack of that profile\n");
	free(text);
	CAPTURE(text, pmc_profile_report_diff(out, o, n, 0));
	assert_contains(text,
			"     200ms      400ms     +200ms  waits_here\n(1 function unchanged)");
	free(text);
	/* Its differential flame graph: the change of time, white where none. */
	CAPTURE(text, pmc_profile_flamegraph(out, o, n, NULL));
	assert_contains(text, "off-cpu, 2 waits (410ms off CPU); red grew, blue shrank (change of "
			      "the time off CPU, measured)");
	assert_contains(text, "<title>waits_less (10ms, 10ms \xe2\x86\x92 10ms, +0ns)</title>");
	assert_true(strncmp(strstr(strstr(text, "<title>waits_less"), "fill="),
			    "fill=\"rgb(255,255,255)\"", 22) == 0);
	assert_contains(text,
			"<title>waits_here (400ms, 200ms \xe2\x86\x92 400ms, +200ms)</title>");
	assert_true(strncmp(strstr(strstr(text, "<title>waits_here"), "fill="),
			    "fill=\"rgb(255,0,0)\"", 18) == 0);
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);
}

static void attribution(void **state)
{
	struct pmc_profile *o, *n;
	char *text = NULL;

	(void)state;
	make_pair(&o, &n);
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "instructions", "count", 1000,
							1300, NULL, 0, false));
	/* main's part is 0: left out, not printed as 0.00%. */
	assert_string_equal(text,
			    "instructions +30.0% (medians 1k -> 1.3k): 96.7% in parse_header, "
			    "3.33% in memcpy\n");
	free(text);
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "instructions", "count", 1000,
							1300, NULL, 1, false));
	assert_string_equal(text,
			    "instructions +30.0% (medians 1k -> 1.3k): 96.7% in parse_header, "
			    "3.33% elsewhere\n");
	free(text);
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "instructions/op", NULL, 1000,
							1300, NULL, 1, true));
	assert_contains(text, "**instructions/op +30.0%** (medians 1k → 1.3k), by function:\n");
	assert_contains(text, "| `parse_header` | 96.7% | 70.0% | 76.2% |\n");
	assert_contains(text, "| 2 other functions | 3.33% | | |\n");
	free(text);
	/* A metric no profile here measures: said, with the metric escaped. */
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "instr_uctions", NULL, 1000,
							1300, NULL, 1, true));
	assert_string_equal(text, "**instr\\_uctions +30.0%** (medians 1k → 1.3k): no profile of "
				  "`instr_uctions` (the profiles are of `Ir`), so pmcbench cannot "
				  "say where\n");
	free(text);
	/* Time is not divided by counted instructions. */
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "task-clock", "ns", 1000, 1300,
							NULL, 0, false));
	assert_string_equal(
	    text, "task-clock +30.0% (medians 1us -> 1.3us): no profile of task-clock (the "
		  "profiles are of Ir), so pmcbench cannot say where\n");
	free(text);

	pmc_profile_free(o);
	pmc_profile_free(n);
}

/* The gate output: "max-rss +5.69%: 184% in parse, 15.8% in [kernel] ... -103%
 * elsewhere (divided by the cpu-clock profile's shares)". Where the time went says
 * nothing of where the memory went. */
static void attribution_needs_a_profile_of_the_metric(void **state)
{
	struct pmc_profile *o = new_profile(PMC_PROFILE_SAMPLED),
			   *n = new_profile(PMC_PROFILE_SAMPLED);
	char *text = NULL;

	(void)state;
	add_k(o, 300, "parse");
	add_k(o, 700, "main_loop");
	add_k(n, 500, "parse");
	add_k(n, 500, "main_loop");
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "max-rss", "bytes", 100e6,
							105.69e6, NULL, 0, false));
	assert_contains(text, "): no profile of max-rss (the profiles are of cpu-clock), so "
			      "pmcbench cannot say where\n");
	assert_null(strstr(text, "parse"));
	free(text);
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "page-faults", "count", 1000,
							1100, NULL, 0, true));
	assert_contains(text, ": no profile of `page-faults` (the profiles are of `cpu-clock`)");
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);
}

/* The 14 samples: "165% in checksum, -161% in 13 other functions". A sampled part
 * is named with its interval only when it has samples enough and is clear of 0; here none
 * is, and the line says so. */
static void sampled_attribution_names_only_findings(void **state)
{
	struct pmc_profile *o = new_profile(PMC_PROFILE_SAMPLED),
			   *n = new_profile(PMC_PROFILE_SAMPLED);
	char *text = NULL, fn[16];

	(void)state;
	add_k(o, 4, "checksum");
	for (int i = 0; i < 10; i++) {
		snprintf(fn, sizeof(fn), "f%d", i);
		add_k(o, 1, fn);
	}
	add_k(n, 9, "checksum");
	for (int i = 0; i < 5; i++) {
		snprintf(fn, sizeof(fn), "g%d", i);
		add_k(n, 1, fn);
	}
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "task-clock", "ns", 1000e6,
							1057e6, NULL, 0, false));
	assert_string_equal(
	    text, "task-clock +5.70% (medians 1s -> 1.057s): the cpu-clock profiles have too "
		  "few samples to say where (14 old, 14 new: no function's part is "
		  "clear of sampling noise); profile a longer run\n");
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);

	/* 1000 and 1201 samples: cold doubled (its part about 100%), hot did not change
	 * (its interval holds 0), one was seen once: cold alone is named. */
	o = new_profile(PMC_PROFILE_SAMPLED);
	n = new_profile(PMC_PROFILE_SAMPLED);
	add_k(o, 800, "hot");
	add_k(o, 200, "cold");
	add_k(n, 800, "hot");
	add_k(n, 400, "cold");
	add_k(n, 1, "one");
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "task-clock", "ns", 1000e6,
							1200e6, NULL, 0, false));
	assert_string_equal(text,
			    "task-clock +20.0% (medians 1s -> 1.2s): 99.8% [71.2%, 128%] in cold, "
			    "0.17% elsewhere\n"
			    "  estimated from cpu-clock samples (1,000 old, 1,201 new), 95% "
			    "intervals; a function needs 10 samples and an interval clear of "
			    "0 to be named\n");
	free(text);
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, n, "wall-time", "ns", 1000e6,
							1200e6, NULL, 0, true));
	assert_contains(text, "| function | part of the change | 95% interval | self samples | old "
			      "share | new share |\n");
	assert_contains(text, "| `cold` | 99.8% | [71.2%, 128%] | 200 → 400 | 20.0% | 33.3% |\n");
	assert_contains(text, "\nestimated from cpu-clock samples (1,000 old, 1,201 new)");
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);
}

static const struct pmc_flame_stack *find_stack(const struct pmc_flame_set *s, const char *a,
						const char *b)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->stacks[i].depth == 2 && strcmp(s->stacks[i].frames[0], a) == 0 &&
		    strcmp(s->stacks[i].frames[1], b) == 0)
			return &s->stacks[i];
	return NULL;
}

static void flame_stacks(void **state)
{
	struct pmc_profile *o, *n;
	struct pmc_flame_set *s = NULL;

	(void)state;
	make_pair(&o, &n);
	add(n, "/new/bin", 4, 2, "main", "?/lib/libc.so.6+0x10");
	add(n, "/new/bin", 6, 2, "main", "?/usr/lib/libc.so.6+0x10");
	add(o, "/old/bin", 50, 2, "main", "gone");

	assert_int_equal(pmc_profile_flame_stacks(n, &s), 0);
	assert_int_equal(s->n, 3);
	assert_int_equal(find_stack(s, "main", "libc.so.6+0x10")->weight, 10);
	assert_int_equal(find_stack(s, "main", "parse_header")->weight, 990);
	pmc_flame_set_free(s);

	assert_int_equal(pmc_profile_flame_diff_stacks(o, n, &s), 0);
	assert_int_equal(s->n, 4);
	assert_int_equal(find_stack(s, "main", "parse_header")->weight, 990);
	assert_int_equal(find_stack(s, "main", "parse_header")->old_weight, 700);
	assert_int_equal(find_stack(s, "main", "memcpy")->old_weight, 300);
	assert_int_equal(find_stack(s, "main", "gone")->weight, 0);
	assert_int_equal(find_stack(s, "main", "gone")->old_weight, 50);
	assert_int_equal(find_stack(s, "main", "libc.so.6+0x10")->old_weight, 0);
	pmc_flame_set_free(s);
	pmc_flame_set_free(NULL);
	pmc_profile_free(o);
	pmc_profile_free(n);

	/* An empty profile is an empty set (its graph says there is nothing to draw). */
	o = new_profile(PMC_PROFILE_SAMPLED);
	assert_int_equal(pmc_profile_flame_stacks(o, &s), 0);
	assert_int_equal(s->n, 0);
	pmc_flame_set_free(s);
	pmc_profile_free(o);
}

/* The deep recursion: most of the weight was in cut chains and no view said so.
 * Every view says how much now, and the folded stacks and flame graphs put cut stacks
 * under one root frame instead of passing them off as functions nothing called. */
static void truncated_weight_is_shown(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED), *o;
	struct pmc_flame_set *set = NULL;
	char *text = NULL;

	(void)state;
	add(p, "/bin/x", 250, 3, "main", "rec", "leaf");
	add_cut(p, "/bin/x", 700, 3, "rec", "rec", "leaf");
	add_cut(p, "/bin/x", 50, 1, "memcpy");
	CAPTURE(text, pmc_profile_report_folded(out, p));
	assert_string_equal(text, "[truncated];memcpy 50\n"
				  "[truncated];rec;rec;leaf 700\n"
				  "main;rec;leaf 250\n");
	free(text);
	CAPTURE(text, pmc_profile_report_text_by(out, p, 0, false));
	assert_contains(text, "Truncated: 75.0% of the weight is in cut call chains (the walk of "
			      "frame pointers ended short of main or a thread's start: code "
			      "without frame pointers, or deeper than perf_event_max_stack)");
	/* Not a function: only the views that draw stacks show it. */
	assert_null(strstr(text, "  [truncated]"));
	free(text);

	assert_int_equal(pmc_profile_flame_stacks(p, &set), 0);
	assert_int_equal(set->n, 3);
	for (size_t i = 0; i < set->n; i++)
		if (set->stacks[i].weight != 250) {
			assert_string_equal(set->stacks[i].frames[0], "[truncated]");
			assert_int_equal(set->stacks[i].depth,
					 set->stacks[i].weight == 700 ? 4 : 2);
		}
	pmc_flame_set_free(set);
	CAPTURE(text, pmc_profile_flamegraph(out, NULL, p, NULL));
	assert_contains(text, "75% of the weight in cut call chains (under [truncated])");
	free(text);

	/* The attribution says it for both sides; the parts themselves use self weights. */
	o = new_profile(PMC_PROFILE_SAMPLED);
	add(o, "/bin/x", 500, 3, "main", "rec", "leaf");
	add(o, "/bin/x", 500, 1, "memcpy");
	CAPTURE(text, pmc_profile_flamegraph(out, o, p, NULL));
	assert_contains(text, "cut call chains (under [truncated]): 0% old, 75% new");
	free(text);
	CAPTURE(text, pmc_profile_report_attribution_of(out, o, p, "task-clock", "ns", 1000, 1300,
							NULL, 0, false));
	assert_contains(text,
			"\n  cut call chains: 0.00% of the old profile's weight, 75.0% of the "
			"new one's");
	free(text);

	/* Without cut chains, not a word. */
	CAPTURE(text, pmc_profile_report_text_by(out, o, 0, false));
	assert_null(strstr(text, "Truncated"));
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(folded),
	    cmocka_unit_test(text_report),
	    cmocka_unit_test(diff_report),
	    cmocka_unit_test(attribution),
	    cmocka_unit_test(flame_stacks),
	    cmocka_unit_test(truncated_weight_is_shown),
	    cmocka_unit_test(attribution_needs_a_profile_of_the_metric),
	    cmocka_unit_test(sampled_attribution_names_only_findings),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
