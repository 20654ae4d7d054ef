/* git as `history add` and `history bisect` ask it: a command line for sh with every
 * word from outside quoted, and the first line of what git prints. */
#pragma once

#include <stdio.h>

/* Writes s to f in single quotes for sh: every ' as '\''. */
void pmc_cli_sh_quote(FILE *f, const char *s);

/* The first line of f, whole, without its newline (a NUL byte ends it too): malloc'ed,
 * or NULL when it is empty, f has none, or memory ran out. */
char *pmc_cli_first_line(FILE *f);

/* Runs "git FMT 'A' 'B'" (a and b quoted by pmc_cli_sh_quote, each left out when NULL)
 * in the working directory, git's stderr discarded: its first line of output
 * (pmc_cli_first_line), or NULL when git failed or printed none. */
char *pmc_cli_git(const char *fmt, const char *a, const char *b);
