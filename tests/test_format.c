/* The one number/unit formatter and the escapers of the reports (reporters/format.c,
 * reporters/escape.c): what a reader of a table sees for a number, and text from a
 * result that can never break the table it lands in. */
#include <locale.h>
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

#include "reporters/escape.h"
#include "reporters/format.h"

/* The short style of comparisons. */
static void test_short_values(void **state)
{
	char buf[32];

	assert_string_equal(pmc_fmt_short(1234567, "count", buf, sizeof(buf)), "1.235M");
	assert_string_equal(pmc_fmt_short(999, "count", buf, sizeof(buf)), "999");
	assert_string_equal(pmc_fmt_short(1.5e6, "ns", buf, sizeof(buf)), "1.5ms");
	assert_string_equal(pmc_fmt_short(2.5e9, "ns", buf, sizeof(buf)), "2.5s");
	assert_string_equal(pmc_fmt_short(2097152, "bytes", buf, sizeof(buf)), "2MiB");
	assert_string_equal(pmc_fmt_short(1.25, "ratio", buf, sizeof(buf)), "1.250");
	assert_string_equal(pmc_fmt_short(2.5, "percent", buf, sizeof(buf)), "2.5%");
	assert_string_equal(pmc_fmt_short(NAN, "count", buf, sizeof(buf)), "-");
	assert_string_equal(pmc_fmt_short(INFINITY, "ns", buf, sizeof(buf)), "-");

	/* The short style formats numbers without printf: it must print what printf would. */
	for (int i = 0; i < 200000; i++) {
		double e = (double)(i % 4000) / 4000.0 * 7.0 - 4.0; /* 1e-4 .. 1e3 */
		double v = pow(10, e) * (1 + (double)i / 7.77e6);
		char want[64];

		if (i & 1)
			v = -v;
		snprintf(want, sizeof(want), "%.4g", v);
		pmc_fmt_short(v, "percent-like", buf, sizeof(buf));
		*strchr(buf, ' ') = '\0';
		if (strcmp(buf, want) != 0) {
			print_error("%.17g: \"%s\", printf \"%s\"\n", v, buf, want);
			fail();
		}
		snprintf(want, sizeof(want), "%.3f", v);
		pmc_fmt_short(v, "ratio", buf, sizeof(buf));
		if (strcmp(buf, want) != 0) {
			print_error("%.17g: \"%s\", printf \"%s\"\n", v, buf, want);
			fail();
		}
	}
	/* Rounding up to 1000 moves to the next prefix. */
	assert_string_equal(pmc_fmt_short(999.96, "count", buf, sizeof(buf)), "1k");
	assert_string_equal(pmc_fmt_short(999.4, "count", buf, sizeof(buf)), "999.4");
	assert_string_equal(pmc_fmt_short(9999.6, "count", buf, sizeof(buf)), "10k");
	assert_string_equal(pmc_fmt_short(0.00012345, "ratio", buf, sizeof(buf)), "0.000");
}

/* The run table's style: counts grouped as perf prints them, times and sizes in the
 * largest unit that keeps them at or above 1, the unit returned for its own column. */
static void test_table_values(void **state)
{
	char buf[64];

	assert_string_equal(pmc_fmt_value(1234567, "count", buf, sizeof(buf)), "");
	assert_string_equal(buf, "1,234,567");
	pmc_fmt_value(-1234567.4, "count", buf, sizeof(buf));
	assert_string_equal(buf, "-1,234,567");
	pmc_fmt_value(0.3, "count", buf, sizeof(buf));
	assert_string_equal(buf, "0.30");
	pmc_fmt_value(103.00000000000001, "count", buf, sizeof(buf));
	assert_string_equal(buf, "103"); /* a whole mean never reads "103.00" */
	pmc_fmt_value(0, "count", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_string_equal(pmc_fmt_value(12.3e6, "ns", buf, sizeof(buf)), "ms");
	assert_string_equal(buf, "12.30");
	assert_string_equal(pmc_fmt_value(999.996, "ns", buf, sizeof(buf)), "us");
	assert_string_equal(buf, "1.00");
	assert_string_equal(pmc_fmt_value(512, "ns", buf, sizeof(buf)), "ns");
	assert_string_equal(buf, "512");
	assert_string_equal(pmc_fmt_value(2.0 * 1024 * 1024, "bytes", buf, sizeof(buf)), "MiB");
	assert_string_equal(buf, "2.00");
	assert_string_equal(pmc_fmt_value(12.345, "percent", buf, sizeof(buf)), "%");
	assert_string_equal(buf, "12.35");
	assert_string_equal(pmc_fmt_value(1.5, "ratio", buf, sizeof(buf)), "");
	assert_string_equal(buf, "1.50");
	assert_string_equal(pmc_fmt_value(3.2, "GHz", buf, sizeof(buf)), "GHz");
	assert_string_equal(buf, "3.20");
	/* A small energy (RAPL's Joules) keeps its digits: never a 0.00 that was not measured. */
	assert_string_equal(pmc_fmt_value(0.000123456, "Joules", buf, sizeof(buf)), "Joules");
	assert_string_equal(buf, "0.000123");
	pmc_fmt_value(0.5, "Joules", buf, sizeof(buf));
	assert_string_equal(buf, "0.5");
	pmc_fmt_value(12.5, "Joules", buf, sizeof(buf));
	assert_string_equal(buf, "12.50");
	pmc_fmt_value(0, "Joules", buf, sizeof(buf));
	assert_string_equal(buf, "0.00");
	/* Microbenchmark throughput: SI steps for items, binary ones for bytes. */
	assert_string_equal(pmc_fmt_value(2647381730.58, "items/s", buf, sizeof(buf)), "G items/s");
	assert_string_equal(buf, "2.65");
	assert_string_equal(pmc_fmt_value(3.0 * 1024 * 1024 * 1024, "bytes/s", buf, sizeof(buf)),
			    "GiB/s");
	assert_string_equal(buf, "3.00");
	assert_string_equal(pmc_fmt_value(12, "items/s", buf, sizeof(buf)), "items/s");
	assert_string_equal(buf, "12");
	/* A user counter's rate in SI steps as items/s are (it printed 229204180.87 count/s),
	 * and in 1024-based ones with PMC_COUNTER_1024; a small inverse keeps its digits. */
	assert_string_equal(pmc_fmt_value(229204180.87, "count/s", buf, sizeof(buf)), "M/s");
	assert_string_equal(buf, "229.20");
	assert_string_equal(pmc_fmt_value(12, "count/s", buf, sizeof(buf)), "/s");
	assert_string_equal(buf, "12");
	assert_string_equal(pmc_fmt_value(0.004, "count/s", buf, sizeof(buf)), "/s");
	assert_string_equal(buf, "0.004");
	assert_string_equal(pmc_fmt_value(1.5 * 1024 * 1024, "count:1024/s", buf, sizeof(buf)),
			    "Mi/s");
	assert_string_equal(buf, "1.50");
	assert_string_equal(pmc_fmt_value(3.0 * 1024 * 1024, "count:1024", buf, sizeof(buf)), "Mi");
	assert_string_equal(buf, "3.00");
	assert_string_equal(pmc_fmt_value(0.25, "count:1024", buf, sizeof(buf)), "");
	assert_string_equal(buf, "0.25");
	assert_string_equal(pmc_fmt_short(229204180.87, "count/s", buf, sizeof(buf)), "229.2M/s");
	assert_string_equal(pmc_fmt_short(3.0 * 1024 * 1024, "count:1024", buf, sizeof(buf)),
			    "3Mi");
	assert_string_equal(pmc_fmt_short(2048, "count:1024/s", buf, sizeof(buf)), "2Ki/s");
	/* Not measured: "-", never a number. */
	assert_string_equal(pmc_fmt_value(NAN, "count", buf, sizeof(buf)), "");
	assert_string_equal(buf, "-");
	pmc_fmt_value(INFINITY, "ns", buf, sizeof(buf));
	assert_string_equal(buf, "-");
	pmc_fmt_grouped(1e40, buf, sizeof(buf));
	assert_string_equal(buf, "1.000e+40");

	pmc_fmt_spread(2, 100, "count", buf, sizeof(buf));
	assert_string_equal(buf, "± 2.00%");
	pmc_fmt_spread(0, 100, "count", buf, sizeof(buf));
	assert_string_equal(buf, "± 0.00%");
	pmc_fmt_spread(1500, 0, "ns", buf, sizeof(buf));
	assert_string_equal(buf, "± 1.50 us");

	pmc_fmt_percent(2.5, false, buf, sizeof(buf));
	assert_string_equal(buf, "2.50%");
	pmc_fmt_percent(12.5, true, buf, sizeof(buf));
	assert_string_equal(buf, "+12.5%");
	pmc_fmt_percent(-150, true, buf, sizeof(buf));
	assert_string_equal(buf, "-150%");
}

static char *escaped(void (*esc)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	esc(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

#define assert_escaped(esc, in, want)                                                              \
	do {                                                                                       \
		char *got_ = escaped(esc, in);                                                     \
		assert_string_equal(got_, want);                                                   \
		free(got_);                                                                        \
	} while (0)

/* One Markdown rule for every report: markup characters get a backslash, control
 * characters (a newline would end the table row, a tab or an escape would pass through
 * into the page) become spaces. */
static void test_markdown_escape(void **state)
{
	assert_escaped(pmc_escape_md, "parse|json", "parse\\|json");
	assert_escaped(pmc_escape_md, "<not supported>", "\\<not supported\\>");
	assert_escaped(pmc_escape_md, "a_b*c`d[e]#f\\g", "a\\_b\\*c\\`d\\[e\\]\\#f\\\\g");
	assert_escaped(pmc_escape_md, "two\nlines\r\tand\x1b", "two lines  and ");
	assert_escaped(pmc_escape_md, "task-clock 1.5ms ± 2%", "task-clock 1.5ms ± 2%");

	assert_escaped(pmc_escape_md_code, "./a.out -n 3", "`./a.out -n 3`");
	assert_escaped(pmc_escape_md_code, "echo `x`", "`` echo `x` ``");
	assert_escaped(pmc_escape_md_code, "a``b", "```a``b```");
	assert_escaped(pmc_escape_md_code, "a\nb|c", "`a b|c`");

	assert_escaped(pmc_escape_text, "a\nb\tc\x7f", "a b c ");
	assert_escaped(pmc_escape_text, "x|<y>", "x|<y>");
}

/* Names in Go's benchmark format are one field of a UTF-8 line, rewritten as Go's testing
 * package rewrites sub-benchmark names; configuration values and comments stay on their
 * line. */
static void test_go_escape(void **state)
{
	static const struct {
		const char *in, *want;
	} names[] = {
	    {"sort", "sort"},
	    {"pmc-work loop 1000", "pmc-work_loop_1000"},
	    {"a\tb\nc\rd\ve\ff", "a_b_c_d_e_f"},
	    {"bell\a back\b", "bell\\a_back\\b"},
	    {"nul-ish\x01\x1f\x7f", "nul-ish\\x01\\x1f\\x7f"},
	    {"nbsp\xc2\xa0nel\xc2\x85ideo\xe3\x80\x80", "nbsp_nel_ideo_"},
	    {"en\xe2\x80\x82"
	     "em\xe2\x80\x83ls\xe2\x80\xa8",
	     "en_em_ls_"},
	    {"c1\xc2\x80zw\xe2\x80\x8b"
	     "bom\xef\xbb\xbf",
	     "c1\\u0080zw\\u200bbom\\ufeff"},
	    {"latin-1 \xe9t\xe9", "latin-1_\xef\xbf\xbdt\xef\xbf\xbd"},
	    {"cut \xe2\x9c", "cut_\xef\xbf\xbd\xef\xbf\xbd"},
	    {"é ✓ 😀", "é_✓_😀"},
	    {"sort/size=1k-8", "sort/size=1k-8"},
	    {"", ""},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *got = pmc_escape_go_name(names[i].in);

		assert_non_null(got);
		if (strcmp(got, names[i].want) != 0)
			fail_msg("\"%s\" written \"%s\", expected \"%s\"", names[i].in, got,
				 names[i].want);
		free(got);
	}
	assert_escaped(pmc_escape_go_text, "Intel(R) Xeon(R) @ 2.00GHz",
		       "Intel(R) Xeon(R) @ 2.00GHz");
	assert_escaped(pmc_escape_go_text, "two\nlines\r\x01", "two lines  ");
	assert_escaped(pmc_escape_go_text, "l\xe9", "l\xef\xbf\xbd");
}

/* Numbers that programs read back (CSV, Go's benchmark format): every digit that makes
 * the double, none more, and '.' whatever the locale. */
static void test_exact_values(void **state)
{
	static const double v[] = {
	    0.1,  1.0 / 3.0,	      1893312, -0.0, 1e300, 5e-324, 123456789.125, 9.3e18, -2.5,
	    1e-7, 0.30000000000000004};
	char buf[PMC_FMT_MAX];
	struct pmc_fmt_locale loc;

	assert_int_equal(pmc_fmt_exact_to(buf, 0.1), 3);
	assert_string_equal(buf, "0.1");
	pmc_fmt_exact_to(buf, 1893312);
	assert_string_equal(buf, "1893312");
	pmc_fmt_exact_to(buf, 1.0 / 3.0);
	assert_string_equal(buf, "0.3333333333333333");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		pmc_fmt_exact_to(buf, v[i]);
		if (strtod(buf, NULL) != v[i] || signbit(strtod(buf, NULL)) != signbit(v[i])) {
			print_error("%.17g written as \"%s\"\n", v[i], buf);
			fail();
		}
	}
	/* Statistics keep 10 significant digits. */
	pmc_fmt_stat_to(buf, 0.1 + 0.2);
	assert_string_equal(buf, "0.3");
	pmc_fmt_stat_to(buf, 1.0 / 3.0);
	assert_string_equal(buf, "0.3333333333");
	pmc_fmt_stat_to(buf, 1e6);
	assert_string_equal(buf, "1000000");

	/* A program that chose a locale with a decimal comma still writes '.'. */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		assert_int_equal(pmc_fmt_locale_c(&loc), 0);
		pmc_fmt_exact_to(buf, 2.5);
		pmc_fmt_locale_restore(&loc);
		setlocale(LC_NUMERIC, "C");
		assert_string_equal(buf, "2.5");
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_short_values),    cmocka_unit_test(test_table_values),
	    cmocka_unit_test(test_markdown_escape), cmocka_unit_test(test_exact_values),
	    cmocka_unit_test(test_go_escape),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
