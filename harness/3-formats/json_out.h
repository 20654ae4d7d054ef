/* Writing JSON text that is safe to show on a terminal: every JSON writer of pmcbench (the
 * result file, the comparison report, the profile file, `list --format json`) writes its
 * values through these. */
#pragma once

#include <stdio.h>

#include <jansson.h>

/* Like json_dump_callback(), json_dumpf() and json_dumps(), with the same flags and
 * results, except that DEL (U+007F) and the C1 controls (U+0080 to U+009F), which jansson
 * writes raw, are written as the escapes \u007F and \u0080 to \u009F, in upper case as jansson
 * writes the others. */
int pmc_json_dump_callback(const json_t *j, json_dump_callback_t cb, void *data, size_t flags);
int pmc_json_dumpf(const json_t *j, FILE *f, size_t flags);
char *pmc_json_dumps(const json_t *j, size_t flags);

/* Writes s to f as one JSON string, escaped as pmc_json_dumpf() escapes, for a writer that
 * lays out its own text (a profile, streamed). JSON text is UTF-8 (RFC 8259, section 8.1):
 * a byte of s that does not start a valid sequence is written as the four characters \xNN,
 * as error messages quote it, rather than making the whole file unreadable. Returns 0,
 * -ENOMEM, or -EIO when f fails (its error flag is set). */
int pmc_json_put_string(FILE *f, const char *s);

/* s as a JSON string, or null when s is NULL (a value not known). */
static inline json_t *pmc_json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}
