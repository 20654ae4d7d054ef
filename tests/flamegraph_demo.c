/* Writes a demo flame graph from fixed stacks to the path in argv[1] (argv[2] "diff":
 * a differential one; "icicle": an inverted one), for the browser test
 * (tests/e2e/flamegraph_browser.sh) and the screenshot in docs/images/flamegraph.png. */
#include <stdio.h>
#include <string.h>

#include "reporters/flamegraph.h"

#define S(w, ow, ...)                                                                              \
	{                                                                                          \
		.frames = (const char *const[]){__VA_ARGS__},                                      \
		.depth = sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *),        \
		.weight = (w), .old_weight = (ow)                                                  \
	}

static const struct pmc_flame_stack stacks[] = {
    S(420, 300, "main", "run_benchmark", "parse_input", "strtod"),
    S(180, 200, "main", "run_benchmark", "parse_input", "memchr"),
    S(900, 1100, "main", "run_benchmark", "hash_table_insert", "hash_bytes"),
    S(350, 150, "main", "run_benchmark", "hash_table_insert", "grow", "memcpy"),
    S(260, 260, "main", "run_benchmark", "hash_table_lookup", "hash_bytes"),
    S(120, 120, "main", "run_benchmark", "hash_table_lookup"),
    S(640, 900, "main", "run_benchmark", "sort_results", "qsort", "compare_keys"),
    S(90, 90, "main", "load_config", "fopen"),
    S(60, 160, "main", "load_config", "json_parse", "json_parse_object"),
    S(200, 200, "[kernel]", "page_fault", "clear_page"),
    S(1, 0, "main", "run_benchmark", "a tiny & <odd> \"frame\""),
};

/* hash_table_insert's tooltip lists its hottest instructions, one naming hash_bytes: a
 * script that took the whole tooltip for the frame's name would find it when searching
 * for hash_bytes, and zoom on no frame for ?z=hash_table_insert. */
static const struct pmc_flame_note notes[] = {
    {"hash_table_insert", "hottest instructions (share of its samples):\n"
			  "   61.0%  1a2b  callq 0x1a00 <hash_bytes>  hash.c:40\n"
			  "   39.0%  1a30  movq %rax, (%rbx)          hash.c:41\n"},
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: flamegraph_demo OUT.svg [diff|icicle]\n");
		return 2;
	}
	int diff = argc > 2 && !strcmp(argv[2], "diff");
	int icicle = argc > 2 && !strcmp(argv[2], "icicle");
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	struct pmc_flame_opts o = {
	    .title = diff     ? "Differential flame graph (demo)"
		     : icicle ? "Icicle graph (demo)"
			      : "Flame graph (demo)",
	    .subtitle = "cpu-clock, 3221 samples",
	    .unit = "samples",
	    .differential = diff,
	    .inverted = icicle,
	    .notes = notes,
	    .nnotes = 1,
	    .note_min_share = 1,
	};
	int r = pmc_flamegraph_write(f, stacks, sizeof(stacks) / sizeof(stacks[0]), &o);
	if (fclose(f) && !r)
		r = -1;
	if (r) {
		fprintf(stderr, "flamegraph_demo: cannot write %s (%d)\n", argv[1], r);
		return 1;
	}
	return 0;
}
