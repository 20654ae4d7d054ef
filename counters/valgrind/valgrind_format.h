/* The one reader of valgrind's output files, callgrind's and cachegrind's (valgrind manual,
 * "Callgrind Format Specification"; cachegrind writes a subset): lines, their kinds, the
 * grammar's tokens and numbers, name compression and cost lines. The valgrind backend
 * reads the totals of a run with it (counters/valgrind/valgrind_outputs.c), the exact profiles
 * the costs per function context (harness/4-profile/callgrind.c), so that both read a
 * file the same way. What a line means is theirs: each gives its own errors for what it
 * does not accept. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds of lines (grammar 3.2.1): a header line "key: value" (events:, totals:,
 * summary:, positions:, desc:, version:, ...), a position spec "key=value" (fn=, ob=,
 * calls=, ...), a cost line (starts with a digit, '+', '-' or '*'), or none of these. */
enum pmc_vgf_kind { PMC_VGF_HEADER, PMC_VGF_SPEC, PMC_VGF_COST, PMC_VGF_OTHER };

struct pmc_vgf_line {
	enum pmc_vgf_kind kind;
	char *text;	 /* the line, without its newline or a CR before it */
	const char *key; /* HEADER and SPEC: the key (keylen bytes) */
	size_t keylen;
	const char *value; /* HEADER and SPEC: what follows the ':' or '=' */
	bool cut;	   /* the file's last line, which has no newline */
};

/* The tables of compressed names ("(id) name" defines id, "(id)" uses it): function
 * names (fn=, cfn=, jfn=, frfn=), objects (ob=, cob=); source files (fl=, fi=, fe=, cfi=,
 * cfl=, jfi=) are only checked for their form, as nothing reads them. */
enum pmc_vgf_names { PMC_VGF_FN, PMC_VGF_OB, PMC_VGF_FL };

struct pmc_vgf_reader;

/* Opens path. Every error of the reader is an error code with one line in err naming the
 * file and, where there is one, the line. Returns 0, -errno when the file cannot be
 * opened, -ENOMEM. */
int pmc_vgf_open(const char *path, char *err, size_t errlen, struct pmc_vgf_reader **ret);

/* The next line into *ret (blank lines and '#' comments are skipped; ret->text is valid
 * until the next call). Returns 1, 0 at the end of the file, -EIO when it cannot be read. */
int pmc_vgf_next(struct pmc_vgf_reader *r, struct pmc_vgf_line *ret);

/* True when l is a header line or spec (kind) with this key. */
bool pmc_vgf_is(const struct pmc_vgf_line *l, enum pmc_vgf_kind kind, const char *key);

/* The number of the line last read (from 1; 0 before the first). */
unsigned pmc_vgf_line_number(const struct pmc_vgf_reader *r);

/* After the last line: -EINVAL for an empty file or one whose last line was cut, else 0. */
int pmc_vgf_finish(struct pmc_vgf_reader *r);

/* A line the caller does not accept: "path:line: what: "text"; is it callgrind's
 * output?" in err. Returns -EINVAL. */
int pmc_vgf_bad(struct pmc_vgf_reader *r, const char *what, const char *text);

/* Resolves the value of a spec ("(id) name", "(id)" or "name") through the file's table
 * of that kind: sets *ret_index (from 0, in the order names are first defined) and
 * *ret_name (the reader's). A source file's name is only checked: ret_index and ret_name
 * may be NULL. Returns 0, -EINVAL (a compressed name used before its definition, defined
 * twice, malformed), -ENOMEM. */
int pmc_vgf_name(struct pmc_vgf_reader *r, enum pmc_vgf_names table, const char *value,
		 size_t *ret_index, const char **ret_name);

/* A cost line: npos subpositions, then up to ncolumns costs (those left out are 0). Sets
 * *ret to the cost of column col (0 when col < 0). Returns 0, -EINVAL, or -EOVERFLOW for
 * a cost above 2^64 - 1. */
int pmc_vgf_cost_line(struct pmc_vgf_reader *r, const char *s, size_t npos, size_t ncolumns,
		      long col, uint64_t *ret);

/* Closes the file and frees the reader. Accepts NULL. */
void pmc_vgf_close(struct pmc_vgf_reader *r);

/* The grammar's tokens and numbers. */

/* True when s starts with prefix. */
bool pmc_vgf_starts_with(const char *s, const char *prefix);

/* The next token of *s separated by spaces or tabs (the grammar's Space), or NULL at the
 * end of the line; advances *s past it and sets *ret_len to its length. */
const char *pmc_vgf_token(const char **s, size_t *ret_len);

/* A cost: decimal digits only (callgrind and cachegrind write costs in decimal). Returns
 * 0, -EINVAL when tok is empty or not all digits, -EOVERFLOW when it does not fit in 64
 * bits (a caller with a lower limit checks it itself). */
int pmc_vgf_count(const char *tok, size_t len, uint64_t *ret);
