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

#include "harness/profile/profile.h"
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
				  "main;[unknown] libc.so.6 5\n"
				  "main;a:b c 4\n"
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
	CAPTURE(text, pmc_profile_report_text(out, p, 2));
	assert_contains(text, "Profile of bench/parse: cpu-clock (ns), sampled (4000 Hz asked)");
	assert_contains(text, "Samples: 2,500, lost: 25\n");
	assert_contains(text, "WARNING: 25 samples lost (0.99% of those taken)");
	assert_contains(text, "Unresolved frames: 750");
	assert_contains(text, "Total: 10ms in 3 stacks, 4 functions");
	assert_contains(text, "  self%  total%       self  function             object\n");
	assert_contains(text, " 60.0%   60.0%        6ms  parse                /bin/x\n");
	assert_contains(text, " 30.0%   30.0%        3ms  [unknown] libc.so.6  /lib/libc.so.6\n");
	assert_contains(text, "(2 more functions");
	assert_null(strstr(text, "evil"));
	free(text);

	CAPTURE(text, pmc_profile_report_text(out, p, 0));
	assert_contains(text, "evil [2J");
	assert_null(strchr(text, '\x1b'));
	assert_contains(text, "  0.00%    100%");
	free(text);
	pmc_profile_free(p);

	/* Exact: no sampling lines, no warning. */
	p = new_profile(PMC_PROFILE_EXACT);
	add(p, "/bin/x", 1000, 2, "main", "f");
	CAPTURE(text, pmc_profile_report_text(out, p, 0));
	assert_contains(text, "Ir (instructions), exact");
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

static void diff_report(void **state)
{
	struct pmc_profile *o, *n;
	char *text = NULL;

	(void)state;
	make_pair(&o, &n);
	add(n, "/new/bin", 100, 2, "main", "new_fn");
	CAPTURE(text, pmc_profile_report_diff(out, o, n, 0));
	/* parse_header 70% -> 70.7%, memcpy 30% -> 22.1%, new_fn 0 -> 7.14% */
	assert_contains(text, "   old%    new%     delta  function\n");
	assert_contains(text, " 30.0%   22.1%     -7.86  memcpy\n");
	assert_contains(text, "      -   7.14%     +7.14  new_fn\n");
	assert_contains(text, " 70.0%   70.7%     +0.71  parse_header\n");
	assert_true(strstr(text, "memcpy") < strstr(text, "new_fn"));
	assert_true(strstr(text, "new_fn") < strstr(text, "parse_header"));
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(n);
}

static void attribution(void **state)
{
	struct pmc_profile *o, *n;
	char *text = NULL, *name = NULL;
	double part = 0;

	(void)state;
	make_pair(&o, &n);
	CAPTURE(text, pmc_profile_report_attribution(out, o, n, "instructions", "count", 1000, 1300,
						     0, false));
	/* main's part is 0: left out, not printed as 0.00%. */
	assert_string_equal(text, "instructions +30.0% (1k -> 1.3k): 96.7% in parse_header, "
				  "3.33% in memcpy\n");
	free(text);
	CAPTURE(text, pmc_profile_report_attribution(out, o, n, "instructions", "count", 1000, 1300,
						     1, false));
	assert_string_equal(text, "instructions +30.0% (1k -> 1.3k): 96.7% in parse_header, "
				  "3.33% elsewhere\n");
	free(text);
	CAPTURE(text, pmc_profile_report_attribution(out, o, n, "instr_uctions", NULL, 1000, 1300,
						     1, true));
	assert_contains(text, "**instr\\_uctions +30.0%**");
	assert_contains(text, "| `parse_header` | 96.7% | 70.0% | 76.2% |\n");
	assert_contains(text, "| 2 other functions | 3.33% | | |\n");
	free(text);

	assert_int_equal(pmc_profile_attribution_top(o, n, 1000, 1300, &name, &part), 0);
	assert_string_equal(name, "parse_header");
	assert_close(part, 290.0 / 300.0, 1e-12);
	free(name);
	assert_int_equal(pmc_profile_attribution_top(o, n, 1000, 1000, &name, &part), -EDOM);
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
	add(n, "/new/bin", 6, 2, "main", "?/usr/lib/libc.so.6+0x99");
	add(o, "/old/bin", 50, 2, "main", "gone");

	assert_int_equal(pmc_profile_flame_stacks(n, &s), 0);
	assert_int_equal(s->n, 3);
	assert_int_equal(find_stack(s, "main", "[unknown] libc.so.6")->weight, 10);
	assert_int_equal(find_stack(s, "main", "parse_header")->weight, 990);
	pmc_flame_set_free(s);

	assert_int_equal(pmc_profile_flame_diff_stacks(o, n, &s), 0);
	assert_int_equal(s->n, 4);
	assert_int_equal(find_stack(s, "main", "parse_header")->weight, 990);
	assert_int_equal(find_stack(s, "main", "parse_header")->old_weight, 700);
	assert_int_equal(find_stack(s, "main", "memcpy")->old_weight, 300);
	assert_int_equal(find_stack(s, "main", "gone")->weight, 0);
	assert_int_equal(find_stack(s, "main", "gone")->old_weight, 50);
	assert_int_equal(find_stack(s, "main", "[unknown] libc.so.6")->old_weight, 0);
	pmc_flame_set_free(s);
	pmc_flame_set_free(NULL);
	pmc_profile_free(o);
	pmc_profile_free(n);

	o = new_profile(PMC_PROFILE_SAMPLED);
	assert_int_equal(pmc_profile_flame_stacks(o, &s), -EINVAL);
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
	CAPTURE(text, pmc_profile_report_text(out, p, 0));
	assert_contains(text, "Truncated: 75.0% of the weight is in cut call chains (no frame "
			      "pointers, or deeper than perf_event_max_stack)");
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
	CAPTURE(text, pmc_profile_flamegraph(out, NULL, p));
	assert_contains(text, "75% of the weight in cut call chains (under [truncated])");
	free(text);

	/* The attribution says it for both sides; the parts themselves use self weights. */
	o = new_profile(PMC_PROFILE_SAMPLED);
	add(o, "/bin/x", 500, 3, "main", "rec", "leaf");
	add(o, "/bin/x", 500, 1, "memcpy");
	CAPTURE(text, pmc_profile_flamegraph(out, o, p));
	assert_contains(text, "cut call chains (under [truncated]): 0% old, 75% new");
	free(text);
	CAPTURE(text, pmc_profile_report_attribution(out, o, p, "instructions", "count", 1000, 1300,
						     0, false));
	assert_contains(text,
			"\n  cut call chains: 0.00% of the old profile's weight, 75.0% of the "
			"new one's");
	free(text);

	/* Without cut chains, not a word. */
	CAPTURE(text, pmc_profile_report_text(out, o, 0));
	assert_null(strstr(text, "Truncated"));
	free(text);
	pmc_profile_free(o);
	pmc_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(folded),	    cmocka_unit_test(text_report),
	    cmocka_unit_test(diff_report),  cmocka_unit_test(attribution),
	    cmocka_unit_test(flame_stacks), cmocka_unit_test(truncated_weight_is_shown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
