/* Call trees of a profile (harness/4-profile/profile_tree.h; reporters'
 * profile_tree_report.c): the caller tree's paths from the roots with their totals and
 * self weights, the callee tree's functions with their callers by self or total weight
 * (each stack once, from a recursive function's outermost call), one function's tree, cut
 * chains under [truncated], and the text: guides, chains in one column, the paths under
 * the limit counted, guides deeper than the width counted. */
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
#include "profile/profile_tree.h"
#include "reporters/profile_report.h"
#include "tests/helpers.h"

static struct pmc_profile *new_profile(void)
{
	struct pmc_profile_info in = {
	    .kind = PMC_PROFILE_SAMPLED, .event = "cpu-clock", .unit = "ns", .freq = 4000};
	struct pmc_profile *p = NULL;

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	return p;
}

/* A stack of k samples of 1 ms, root first; cut: its chain was cut. */
static void add(struct pmc_profile *p, bool cut, uint64_t k, int depth, ...)
{
	uint32_t ids[16];
	va_list ap;

	va_start(ap, depth);
	for (int i = 0; i < depth; i++)
		assert_int_equal(
		    pmc_profile_frame_id(p, va_arg(ap, const char *), "/bin/x", 0, &ids[i]), 0);
	va_end(ap);
	assert_int_equal(pmc_profile_add(p, ids, (uint32_t)depth, k * 1000000, k, cut), 0);
}

/* main calls parse (which calls memcmp) and run (which calls memcmp too, and recurses
 * once); a cut stack of memcmp alone. */
static struct pmc_profile *sample_profile(void)
{
	struct pmc_profile *p = new_profile();

	add(p, false, 30, 3, "main", "parse", "memcmp");
	add(p, false, 10, 2, "main", "parse");
	add(p, false, 20, 4, "main", "run", "run", "memcmp");
	add(p, false, 36, 2, "main", "run");
	add(p, true, 4, 1, "memcmp");
	return p;
}

/* The child of node i named name, or NULL. */
static const struct pmc_profile_tree_node *kid(const struct pmc_profile_tree *t, size_t i,
					       const char *name)
{
	for (size_t c = pmc_profile_tree_node(t, i)->first_child; c != PMC_PROFILE_TREE_NONE;
	     c = pmc_profile_tree_node(t, c)->next_sibling)
		if (strcmp(pmc_profile_tree_node(t, c)->name, name) == 0)
			return pmc_profile_tree_node(t, c);
	return NULL;
}

static size_t id_of(const struct pmc_profile_tree *t, const struct pmc_profile_tree_node *x)
{
	return (size_t)(x - pmc_profile_tree_node(t, 0));
}

static void caller_tree(void **state)
{
	struct pmc_profile *p = sample_profile();
	struct pmc_profile_tree *t;
	const struct pmc_profile_tree_node *main_, *run, *parse, *cut;

	(void)state;
	assert_int_equal(pmc_profile_tree_build(p, NULL, &t), 0);
	assert_int_equal(pmc_profile_tree_node(t, 0)->weight, 100000000);
	/* The roots: main (96), then [truncated] (4), heaviest first. */
	main_ = pmc_profile_tree_node(t, pmc_profile_tree_node(t, 0)->first_child);
	assert_string_equal(main_->name, "main");
	assert_int_equal(main_->weight, 96000000);
	assert_int_equal(main_->self, 0);
	cut = pmc_profile_tree_node(t, main_->next_sibling);
	assert_string_equal(cut->name, PMC_PROFILE_TRUNCATED_FRAME);
	assert_int_equal(kid(t, id_of(t, cut), "memcmp")->self, 4000000);
	/* run (56) before parse (40). */
	run = pmc_profile_tree_node(t, main_->first_child);
	assert_string_equal(run->name, "run");
	assert_int_equal(run->weight, 56000000);
	assert_int_equal(run->self, 36000000);
	assert_int_equal(run->samples, 56);
	assert_int_equal(kid(t, id_of(t, kid(t, id_of(t, run), "run")), "memcmp")->weight,
			 20000000);
	parse = pmc_profile_tree_node(t, run->next_sibling);
	assert_int_equal(parse->weight, 40000000);
	assert_int_equal(parse->self, 10000000);
	assert_int_equal(kid(t, id_of(t, parse), "memcmp")->self, 30000000);
	pmc_profile_tree_free(t);

	/* What run calls: from its outermost call, once per stack. */
	{
		struct pmc_profile_tree_opts o = {.kind = PMC_PROFILE_TREE_CALLER,
						  .function = "run"};
		const struct pmc_profile_tree_node *r;

		assert_int_equal(pmc_profile_tree_build(p, &o, &t), 0);
		r = pmc_profile_tree_node(t, pmc_profile_tree_node(t, 0)->first_child);
		assert_string_equal(r->name, "run");
		assert_int_equal(r->weight, 56000000);
		assert_int_equal(r->next_sibling, PMC_PROFILE_TREE_NONE);
		assert_non_null(kid(t, id_of(t, r), "run"));
		pmc_profile_tree_free(t);
		o.function = "nothing";
		assert_int_equal(pmc_profile_tree_build(p, &o, &t), -ENOENT);
	}
	pmc_profile_free(p);
}

/* Who calls memcmp: its 54 ms of self weight, 30 from parse, 20 from run (under run), 4
 * with its callers cut. */
static void callee_tree(void **state)
{
	struct pmc_profile *p = sample_profile();
	struct pmc_profile_tree_opts o = {.kind = PMC_PROFILE_TREE_CALLEE, .function = "memcmp"};
	struct pmc_profile_tree *t;
	const struct pmc_profile_tree_node *m, *r;

	(void)state;
	assert_int_equal(pmc_profile_tree_build(p, &o, &t), 0);
	m = pmc_profile_tree_node(t, pmc_profile_tree_node(t, 0)->first_child);
	assert_string_equal(m->name, "memcmp");
	assert_int_equal(m->weight, 54000000);
	assert_int_equal(m->self, 54000000);
	assert_int_equal(m->next_sibling, PMC_PROFILE_TREE_NONE);
	assert_int_equal(kid(t, id_of(t, m), "parse")->weight, 30000000);
	r = kid(t, id_of(t, m), "run");
	assert_int_equal(r->weight, 20000000);
	assert_int_equal(kid(t, id_of(t, r), "run")->weight, 20000000);
	assert_int_equal(kid(t, id_of(t, m), PMC_PROFILE_TRUNCATED_FRAME)->weight, 4000000);
	pmc_profile_tree_free(t);

	/* Every function by self weight: run 36, memcmp 54, parse 10; main has none. */
	o.function = NULL;
	assert_int_equal(pmc_profile_tree_build(p, &o, &t), 0);
	m = pmc_profile_tree_node(t, pmc_profile_tree_node(t, 0)->first_child);
	assert_string_equal(m->name, "memcmp");
	assert_string_equal(pmc_profile_tree_node(t, m->next_sibling)->name, "run");
	assert_null(kid(t, 0, "main"));
	pmc_profile_tree_free(t);

	/* By total (--children): run once per stack (56, not 76 with its recursion), main
	 * 96 with its callers none; the root is the profile once. */
	o.children = true;
	assert_int_equal(pmc_profile_tree_build(p, &o, &t), 0);
	assert_int_equal(pmc_profile_tree_node(t, 0)->weight, 100000000);
	assert_int_equal(kid(t, 0, "main")->weight, 96000000);
	assert_int_equal(kid(t, 0, "main")->first_child, PMC_PROFILE_TREE_NONE);
	r = kid(t, 0, "run");
	assert_int_equal(r->weight, 56000000);
	assert_int_equal(r->self, 36000000);
	assert_int_equal(kid(t, id_of(t, r), "main")->weight, 56000000);
	assert_int_equal(kid(t, 0, "parse")->weight, 40000000);
	assert_int_equal(kid(t, 0, "memcmp")->weight, 54000000);
	assert_null(kid(t, 0, PMC_PROFILE_TRUNCATED_FRAME));
	pmc_profile_tree_free(t);
	pmc_profile_free(p);
}

static char *render(const struct pmc_profile *p, const struct pmc_profile_tree_view *v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(pmc_profile_report_tree(out, p, v), 0);
	fclose(out);
	return text;
}

static void tree_text(void **state)
{
	struct pmc_profile *p = sample_profile();
	struct pmc_profile_tree_view v = {.kind = PMC_PROFILE_TREE_CALLER, .percent_limit = 5};
	char *text;

	(void)state;
	text = render(p, &v);
	/* The 4 ms chain of [truncated] is under 5%: left out with the roots' rest. */
	assert_contains(text, " total%   self%       total  function\n"
			      "  96.0%   0.00%        96ms  main\n"
			      "  56.0%   36.0%        56ms  \xe2\x94\x9c\xe2\x94\x80 run\n"
			      "  20.0%   0.00%        20ms  \xe2\x94\x82  run\n"
			      "  20.0%   20.0%        20ms  \xe2\x94\x82  memcmp\n"
			      "  40.0%   10.0%        40ms  \xe2\x94\x94\xe2\x94\x80 parse\n"
			      "  30.0%   30.0%        30ms     memcmp\n");
	assert_null(strstr(text, "  [truncated]\n"));
	assert_contains(text, "\n(1 more root under 5%: 4.00%)\n");
	free(text);

	/* Who calls memcmp, with the paths under 5% counted. */
	v.kind = PMC_PROFILE_TREE_CALLEE;
	v.function = "memcmp";
	text = render(p, &v);
	assert_contains(text, "  share      weight  function\n"
			      "  54.0%        54ms  memcmp\n"
			      "  30.0%        30ms  \xe2\x94\x9c\xe2\x94\x80 parse\n"
			      "  30.0%        30ms  \xe2\x94\x82  main\n"
			      "  20.0%        20ms  \xe2\x94\x9c\xe2\x94\x80 run\n"
			      "  20.0%        20ms  \xe2\x94\x82  run\n"
			      "  20.0%        20ms  \xe2\x94\x82  main\n"
			      "                     \xe2\x94\x94\xe2\x94\x80 (1 more under 5%: "
			      "4.00%)\n");
	free(text);

	/* The callee tree's entries: --top of them. */
	v.function = NULL;
	v.top = 1;
	text = render(p, &v);
	assert_contains(text, "(2 more functions; a larger --top shows them)\n");
	free(text);
	pmc_profile_free(p);
}

/* Twelve levels that each branch: at 60 columns, the guides beyond the first two are
 * counted ("+N") and every name keeps its room. */
static void deep_tree_fits_the_width(void **state)
{
	struct pmc_profile *p = new_profile();
	const char *path[16];
	char names[16][16];
	struct pmc_profile_tree_view v = {.kind = PMC_PROFILE_TREE_CALLER, .width = 60};
	char *text;
	uint32_t ids[16];

	(void)state;
	for (int d = 0; d < 13; d++) {
		snprintf(names[d], sizeof(names[d]), "level%d", d);
		path[d] = names[d];
	}
	for (int d = 1; d <= 13; d++) {
		for (int i = 0; i < d; i++)
			assert_int_equal(pmc_profile_frame_id(p, path[i], "/bin/x", 0, &ids[i]), 0);
		assert_int_equal(pmc_profile_frame_id(p, "leaf", "/bin/x", 0, &ids[d]), 0);
		assert_int_equal(pmc_profile_add(p, ids, (uint32_t)d + 1, 1000000, 1, false), 0);
	}
	text = render(p, &v);
	for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		size_t cols = 0;

		for (char *c = line; c < nl; c++)
			cols += ((unsigned char)*c & 0xc0) != 0x80;
		assert_true(cols <= 60);
	}
	assert_contains(text, "+11 \xe2\x94\x94\xe2\x94\x80 level12\n");
	free(text);
	/* No width: every guide. */
	v.width = 0;
	text = render(p, &v);
	assert_null(strstr(text, "+11"));
	free(text);
	pmc_profile_free(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(caller_tree),
	    cmocka_unit_test(callee_tree),
	    cmocka_unit_test(tree_text),
	    cmocka_unit_test(deep_tree_fits_the_width),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
