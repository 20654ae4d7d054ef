/* Other tools' profiles in (harness/4-profile/profile_import.h): perf script's output
 * recorded on the development VM and folded stacks are read into the stacks, weights,
 * samples and names a user then sees in `report --folded`; the format is told by the
 * content; each malformed input is -EINVAL with one line naming the file, the line and
 * the fix. Fixtures: tests/data/profile/README.md. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "profile/profile.h"
#include "profile/profile_import.h"
#include "reporters/profile_report.h"

#define DATA PMC_TEST_SRCDIR "/data/profile/"

static struct pmc_profile *load(const char *path, enum pmc_profile_format want)
{
	enum pmc_profile_format fmt = (enum pmc_profile_format) - 1;
	struct pmc_profile *p = NULL;
	char err[512] = "";

	if (pmc_profile_load_any(path, &p, &fmt, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(fmt, want);
	return p;
}

/* What `report --folded` prints of p. */
static char *folded(const struct pmc_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pmc_profile_report_folded(f, p), 0);
	fclose(f);
	return buf;
}

static const struct pmc_profile_fn *find_fn(const struct pmc_profile_fn *f, size_t n,
					    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

/* Real perf script output of pmc-prof-work: every sample, its period as the weight, the
 * two functions' self samples as perf recorded them, and the root "(below main)". */
static void perf_script_recorded(void **state)
{
	struct pmc_profile *p = load(DATA "perf_script_work.txt", PMC_PROFILE_FORMAT_PERF_SCRIPT);
	const struct pmc_profile_info *in = pmc_profile_info(p);
	struct pmc_profile_fn *fns = NULL;
	size_t n = 0;
	char *text = folded(p);

	(void)state;
	assert_string_equal(in->event, "cpu-clock");
	assert_string_equal(in->unit, "ns");
	assert_int_equal(in->kind, PMC_PROFILE_SAMPLED);
	assert_int_equal(in->samples, 145);
	/* perf script's output does not say how many samples perf lost: not known, not 0. */
	assert_true(in->lost_unknown);
	assert_int_equal(pmc_profile_samples(p), 145);
	assert_int_equal(in->unresolved, 0);
	assert_int_equal(pmc_profile_total(p), 145ull * 1003009);
	assert_int_equal(pmc_profile_functions(p, &fns, &n), 0);
	assert_int_equal(find_fn(fns, n, "prof_hot")->self_samples, 115);
	assert_int_equal(find_fn(fns, n, "prof_cold")->self_samples, 30);
	assert_string_equal(fns[0].object, "/work/wt-prof/build/tests/targets/pmc-prof-work");
	assert_non_null(strstr(text, "(below main);main;prof_hot 115346035\n"));
	assert_null(strstr(text, "__libc_start_call_main"));
	pmc_profile_functions_free(fns, n);
	free(text);
	pmc_profile_free(p);

	/* Without -g: the one frame on the header line, the command padded. */
	p = load(DATA "perf_script_no_callchain.txt", PMC_PROFILE_FORMAT_PERF_SCRIPT);
	assert_int_equal(pmc_profile_info(p)->samples, 29);
	assert_int_equal(pmc_profile_stack_count(p), 2);
	assert_int_equal(pmc_profile_functions(p, &fns, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(fns[0].name, "prof_hot");
	pmc_profile_functions_free(fns, n);
	pmc_profile_free(p);

	/* perf script --show-lost-events: its LOST lines say how many perf lost (5 + 25),
	 * and they are no samples. */
	p = load(DATA "perf_script_lost.txt", PMC_PROFILE_FORMAT_PERF_SCRIPT);
	assert_int_equal(pmc_profile_info(p)->samples, 3);
	assert_int_equal(pmc_profile_samples(p), 3);
	assert_int_equal(pmc_profile_info(p)->lost, 30);
	assert_false(pmc_profile_info(p)->lost_unknown);
	assert_int_equal(pmc_profile_total(p), 3 * 20000);
	pmc_profile_free(p);

	/* perf script --no-demangle of a C++ program: valgrind's names. */
	p = load(DATA "perf_script_cxx.txt", PMC_PROFILE_FORMAT_PERF_SCRIPT);
	text = folded(p);
	assert_non_null(strstr(text, "(below main);main;long shapes::twice<long>(long, unsigned "
				     "long);shapes::Mixer::spin(unsigned long) "));
	free(text);
	pmc_profile_free(p);
}

/* Every part of the layout by hand: a command with a space, PID/TID, [CPU], an event
 * with a modifier, C++ names and an object with parentheses, unnamed addresses, the 0
 * that ends a chain, kernel frames, header comments. */
static void perf_script_by_hand(void **state)
{
	struct pmc_profile *p = load(DATA "perf_script_hand.txt", PMC_PROFILE_FORMAT_PERF_SCRIPT);
	const struct pmc_profile_info *in = pmc_profile_info(p);
	char *text = folded(p);

	(void)state;
	assert_string_equal(in->event, "cpu-clock:u");
	assert_string_equal(in->unit, "ns");
	assert_int_equal(in->samples, 3);
	/* app+0x1e5 and [anon]; kernel frames are named, and the 0 is no frame. */
	assert_int_equal(in->unresolved, 2);
	assert_string_equal(text, "(below main);app+0x1e5;std::vector<int, std::allocator<int> "
				  ">::size() const;shapes::Mixer::spin(unsigned long) 250000\n"
				  "main;[anon] 500000\n"
				  "main;__GI___libc_write;entry_SYSCALL_64_after_hwframe;"
				  "do_syscall_64 250000\n");
	for (uint32_t i = 0; i < pmc_profile_frame_count(p); i++) {
		const struct pmc_profile_frame *f = pmc_profile_frame(p, i);

		if (f->symbol && !strcmp(f->symbol, "do_syscall_64"))
			assert_string_equal(f->object, "[kernel]");
		if (!f->symbol && !strcmp(f->object, "/opt/app (beta)/bin/app"))
			assert_int_equal(f->offset, 0x1e5);
	}
	free(text);
	pmc_profile_free(p);
}

static void folded_by_hand(void **state)
{
	struct pmc_profile *p = load(DATA "hand.folded", PMC_PROFILE_FORMAT_FOLDED);
	const struct pmc_profile_info *in = pmc_profile_info(p);
	char *text = folded(p);

	(void)state;
	assert_string_equal(in->unit, "samples");
	assert_int_equal(in->samples, 100);
	assert_true(in->lost_unknown);
	assert_int_equal(pmc_profile_total(p), 100);
	assert_int_equal(pmc_profile_truncated(p), 5);
	/* Written back as it was read, with pmcbench's names. */
	assert_string_equal(text, "(below main);main;emit 20\n"
				  "[truncated];rec;rec 5\n"
				  "main;parse 10\n"
				  "main;parse;scan 40\n"
				  "main;shapes::Mixer::spin(unsigned long) 25\n");
	free(text);
	pmc_profile_free(p);
}

/* What `report` prints of p. */
static char *report(const struct pmc_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pmc_profile_report_text_by(f, p, 5, false), 0);
	fclose(f);
	return buf;
}

/* A profile pmcbench saved still loads, as JSON; an imported one's lost samples stay not
 * known ("lost": null), and the report says so rather than 0. */
static void json_still_loads(void **state)
{
	char path[] = "/tmp/pmc-import-XXXXXX";
	struct pmc_profile *p = load(DATA "hand.folded", PMC_PROFILE_FORMAT_FOLDED), *q;
	int fd = mkstemp(path);
	char line[256], *text;
	bool null_lost = false;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pmc_profile_save(p, path, NULL, 0), 0);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f))
		null_lost = null_lost || strstr(line, "\"lost\": null");
	fclose(f);
	assert_true(null_lost);
	q = load(path, PMC_PROFILE_FORMAT_PMCBENCH);
	assert_int_equal(pmc_profile_total(q), 100);
	assert_true(pmc_profile_info(q)->lost_unknown);
	assert_int_equal(pmc_profile_info(q)->lost, 0);
	text = report(q);
	assert_non_null(strstr(text, "Samples: 100, lost: not known (the input does not say)\n"));
	assert_null(strstr(text, "lost: 0"));
	free(text);
	unlink(path);
	pmc_profile_free(p);
	pmc_profile_free(q);
}

/* Writes text to a temporary file, loads it and expects -EINVAL with a message that
 * starts with the file's name, the line ("path:N:") and holds `says`. */
static void expect_refused(const char *text, size_t len, const char *line, const char *says)
{
	char path[] = "/tmp/pmc-import-XXXXXX", err[1024] = "", want[64];
	struct pmc_profile *p = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	assert_int_equal(pmc_profile_load_any(path, &p, NULL, err, sizeof(err)), -EINVAL);
	assert_null(p);
	snprintf(want, sizeof(want), "%s%s", path, line);
	if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, says))
		fail_msg("%s: expected \"%s...%s\"", err, want, says);
	assert_null(strchr(err, '\n'));
	unlink(path);
}

#define REFUSED(text, line, says) expect_refused(text, sizeof(text) - 1, line, says)

static void bad_input(void **state)
{
	(void)state;
	REFUSED("", ": empty", "folded stacks or perf script");
	REFUSED("\n\n# only a comment\n", ": empty", "folded stacks");
	REFUSED("hello world\n", ":1: not a profile pmcbench reads", "perf record -g");
	REFUSED("\n\nhello\n", ":3: not a profile", "folded stacks");
	REFUSED("a;b 3\nfoo\n", ":2: no count at the end of the line", "flamegraph.pl");
	REFUSED("a;b 3\na;;b 4\n", ":2: an empty frame name", "flamegraph.pl");
	REFUSED("a;b 3\n 4\n", ":2: no stack before the count", "flamegraph.pl");
	REFUSED("a;b 3 4\n", ":1: two counts", "report --diff");
	REFUSED("a 99999999999999999999\n", ":1: count 99999999999999999999 is beyond", "");
	REFUSED("a 18446744073709551615\nb 1\n", ":2: the counts add up beyond", "");
	REFUSED("a 1\nb\0 2\n", ":2: a NUL byte", "");
	REFUSED("p 1 1.5: 10 cpu-clock: \n\tzz f+0x1 (x)\n",
		":2: a call chain line that does "
		"not start with an address",
		"perf script");
	REFUSED("p 1 1.5: 10 cpu-clock: \n\t12 f+0x1 x)\n",
		":2: a frame's object is missing "
		"its '('",
		"perf script");
	REFUSED("p 1 1.5: 10 cpu-clock: \n\t12 f (x)\nnonsense\n",
		":3: not a sample's first "
		"line",
		"perf script");
	REFUSED("p 1 1.5: 10 cpu-clock: \n\t12 f (x)\n\np 1 1.6: 10 page-faults: \n",
		":4: a sample "
		"of page-faults, but the first was of cpu-clock",
		"perf record -e");
	REFUSED("p 1 1.5: 10 cpu-clock: \n\np 1 1.6: cpu-clock: \n",
		":3: a sample with a period "
		"and one without",
		"perf script");
	REFUSED("p 1 1.5: 10 cpu-clock: \n\t12 f\0 (x)\n", ":2: a NUL byte", "");
	REFUSED("p 1 1.5: 18446744073709551615 cpu-clock: \n\np 1 1.6: 1 cpu-clock: \n",
		":3: the periods add up beyond 2^64-1", "");
	REFUSED("p 1 1.5: 10 cpu-clock: \n\t1ffffffffffffffffff f (x)\n", ":2: an address beyond",
		"");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(perf_script_recorded),
	    cmocka_unit_test(perf_script_by_hand),
	    cmocka_unit_test(folded_by_hand),
	    cmocka_unit_test(json_still_loads),
	    cmocka_unit_test(bad_input),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
