/* One escaper per output language that has no library of its own: text shown on a
 * terminal, GitHub-flavoured Markdown, Go's benchmark format, and XML (SVG, HTML). (CSV is quoted
 * by libcsv, JSON by jansson.) */
#pragma once

#include <stdbool.h>

#include <stdio.h>

/* Terminal text: control characters (C0, DEL, C1 as UTF-8 or as a lone byte) become
 * spaces, so that a newline in a name cannot break a table's layout or forge a line, and
 * an escape sequence cannot reach the terminal. */
void pmc_escape_text(FILE *out, const char *s);

/* s as pmc_escape_text() shows it, as a new string (malloc'd), for a writer that quotes
 * it further (CSV: a quoted field may hold a newline, but a log that shows the file must
 * not). NULL when memory ran out. */
char *pmc_escape_text_dup(const char *s);
/* Whether s holds anything pmc_escape_text() would change. */
bool pmc_escape_text_needed(const char *s);

/* Text in a Markdown table cell or heading: a backslash before each of \ ` * _ | < > [ ]
 * # (CommonMark allows one before any ASCII punctuation; GFM needs "\|" in tables, and
 * "<not supported>" would be taken for an HTML tag), control characters as spaces so
 * that a newline cannot end the row. */
void pmc_escape_md(FILE *out, const char *s);

/* A Markdown code span that shows s verbatim: the fence is one backtick longer than the
 * longest run inside, padded when s starts or ends with a backtick (CommonMark 6.1);
 * control characters become spaces. */
void pmc_escape_md_code(FILE *out, const char *s);

/* A name as one field of Go's benchmark format (docs/export.md), rewritten as Go's testing
 * package rewrites the name of a sub-benchmark: white space (Go's unicode.IsSpace: ASCII
 * space and controls \t \n \v \f \r, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
 * U+2029, U+202F, U+205F, U+3000) becomes '_', other control and format characters are
 * escaped as Go quotes them ("\a", "\x01", "\u0080", "\u200b"), and a byte that is not
 * UTF-8 becomes U+FFFD (Go reads it so; benchstat refuses a file that is not UTF-8).
 * Returns the name (malloc'd), or NULL when memory ran out. */
char *pmc_escape_go_name(const char *s);

/* Text on one line of Go's benchmark format (a configuration value, a comment): control
 * characters become spaces, so that a newline cannot end the line, and bytes that are not
 * UTF-8 U+FFFD. */
void pmc_escape_go_text(FILE *out, const char *s);

/* Text in XML (or HTML) character data or an attribute value: markup characters as
 * entities, and what XML 1.0 forbids or a reader would misread (control characters, C1
 * controls, bytes that are not UTF-8) as U+FFFD, so that no name can end an element,
 * open a script or make the file unreadable. At most max_chars characters (SIZE_MAX: no
 * limit), then "..". */
void pmc_escape_xml(FILE *out, const char *s, size_t max_chars);
