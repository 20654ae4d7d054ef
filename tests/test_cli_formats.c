/* Every format of the registry (reporters/report.c) where the help texts and the
 * completion scripts list formats and extensions by hand: those are static text
 * (docs/cli.md is generated from the help), so a new format that forgets one fails here,
 * with the file to edit. */
#include <ctype.h>
#include <getopt.h>
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

#include "cli/cli.h"
#include "reporters/reporter.h"

enum which { FORMATS_RESULT, FORMATS_COMPARISON, FORMATS_ANY };

static bool listed(const struct pmc_reporter *rep, enum which w)
{
	if (rep->unlisted)
		return false;
	return w == FORMATS_RESULT	 ? rep->result != NULL
	       : w == FORMATS_COMPARISON ? rep->comparison != NULL
					 : rep->result || rep->comparison;
}

/* Whether word occurs in text between characters that cannot be part of a name. */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		bool before = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '.');
		bool after = !isalnum((unsigned char)p[n]);

		if (before && after)
			return true;
	}
	return false;
}

/* What a command (argv[0] its name) writes on standard output for --help. */
static char *help_of(int argc, char **argv)
{
	FILE *t = tmpfile();
	int saved;
	long len;
	char *text;

	assert_non_null(t);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(t), STDOUT_FILENO) >= 0);
	optind = 0;
	if (strcmp(argv[0], "run") == 0)
		assert_int_equal(pmc_cli_run(argc, argv, NULL), 0);
	else if (strcmp(argv[0], "compare") == 0)
		assert_int_equal(pmc_cli_compare(argc, argv), 0);
	else if (strcmp(argv[0], "gate") == 0)
		assert_int_equal(pmc_cli_gate(argc, argv), 0);
	else
		assert_int_equal(pmc_cli_microbench(argc, argv, argv[0], NULL, 0), 0);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	len = ftell(t);
	assert_true(len > 0);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	rewind(t);
	assert_int_equal(fread(text, 1, (size_t)len, t), (size_t)len);
	fclose(t);
	return text;
}

/* The first paragraph of option --name in a help text: its line and the lines that go
 * on describing it, up to the next option or an empty line. NULL when there is none. */
static char *paragraph(const char *help, const char *name)
{
	const char *line = help, *end;
	char key[32];

	snprintf(key, sizeof(key), "--%s", name);
	for (; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
		const char *p = line + strspn(line, " ");

		if (p[0] == '-' && p[1] != '-' && p[2] == ',')
			p += 3 + strspn(p + 3, " ");
		if (strncmp(p, key, strlen(key)) == 0 &&
		    (p[strlen(key)] == '=' || p[strlen(key)] == ' '))
			break;
	}
	if (!*line)
		return NULL;
	end = strchr(line, '\n');
	while (end && end[1] != '\n' && end[1] != '\0' && end[1 + strspn(end + 1, " ")] != '-')
		end = strchr(end + 1, '\n');
	return strndup(line, end ? (size_t)(end - line) : strlen(line));
}

struct help_case {
	const char *command; /* argv[0] */
	const char *who;     /* for a message: "the help of --format of <who>" */
	const char *file;    /* where its help is written */
	enum which formats;  /* what its --format and --export take */
};

static const struct help_case cases[] = {
    {"run", "run", "harness/7-cli/cli_run_opts.c", FORMATS_RESULT},
    {"bench", "a benchmark program", "harness/7-cli/cli_microbench_opts.c", FORMATS_RESULT},
    {"compare", "compare", "harness/7-cli/cli_compare_opts.c (--format), cli_compare.c (--export)",
     FORMATS_COMPARISON},
    {"gate", "gate", "harness/7-cli/cli_compare_opts.c (--format), cli_compare.c (--export)",
     FORMATS_COMPARISON},
};

static void test_help_lists_every_format(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = {(char *)cases[i].command, "--help", NULL};
		char *help = help_of(2, argv);
		char *format = paragraph(help, "format"), *export = paragraph(help, "export");
		const struct pmc_reporter *rep;

		if (!format || !export)
			fail_msg("the help of %s has no paragraph of --%s", cases[i].who,
				 format ? "export" : "format");
		for (size_t k = 0; (rep = pmc_reporter_at(k)) != NULL; k++) {
			if (!listed(rep, cases[i].formats))
				continue;
			if (!has_word(format, rep->name))
				fail_msg("format '%s' is missing from the help of --format of %s: "
					 "add it in %s, then run sh ci/gen-cli-doc.sh build",
					 rep->name, cases[i].who, cases[i].file);
			if (rep->by_extension && !has_word(export, rep->ext))
				fail_msg(
				    "extension '%s' (format '%s') is missing from the help of "
				    "--export of %s: add it in %s, then run sh ci/gen-cli-doc.sh "
				    "build",
				    rep->ext, rep->name, cases[i].who, cases[i].file);
		}
		free(format);
		free(export);
		free(help);
	}
}

/* The line of a completion script that offers --format's values. */
static char *format_line(const char *script)
{
	char path[4096], line[1024];
	char *found = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/../harness/7-cli/completion/%s", PMC_TEST_SRCDIR, script);
	f = fopen(path, "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line + strspn(line, " \t"), "format)", 7) == 0)
			found = strdup(line);
	fclose(f);
	if (!found)
		fail_msg("%s: no line 'format)' offering --format's values", path);
	return found;
}

static void test_completion_offers_every_format(void **state)
{
	static const char *const scripts[] = {"pmcbench.bash", "_pmcbench"};

	(void)state;
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		char *line = format_line(scripts[i]);
		const struct pmc_reporter *rep;

		for (size_t k = 0; (rep = pmc_reporter_at(k)) != NULL; k++)
			if (listed(rep, FORMATS_ANY) && !has_word(line, rep->name))
				fail_msg("format '%s' is missing from --format's values in "
					 "harness/7-cli/completion/%s (the line 'format)'): add it "
					 "there",
					 rep->name, scripts[i]);
		free(line);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_help_lists_every_format),
	    cmocka_unit_test(test_completion_offers_every_format),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
