/* One escaper per output language that has no library of its own: text shown on a
 * terminal, and GitHub-flavoured Markdown. (CSV is quoted by libcsv, JSON by jansson.) */
#pragma once

#include <stdio.h>

/* Terminal text: control characters become spaces, so that a newline in a name or a
 * note cannot break a table's layout. */
void pmc_escape_text(FILE *out, const char *s);

/* Text in a Markdown table cell or heading: a backslash before each of \ ` * _ | < > [ ]
 * # (CommonMark allows one before any ASCII punctuation; GFM needs "\|" in tables, and
 * "<not supported>" would be taken for an HTML tag), control characters as spaces so
 * that a newline cannot end the row. */
void pmc_escape_md(FILE *out, const char *s);

/* A Markdown code span that shows s verbatim: the fence is one backtick longer than the
 * longest run inside, padded when s starts or ends with a backtick (CommonMark 6.1);
 * control characters become spaces. */
void pmc_escape_md_code(FILE *out, const char *s);
