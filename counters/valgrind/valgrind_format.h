/* The lexical rules of callgrind's and cachegrind's output files (valgrind manual,
 * "Callgrind Format Specification", 3.2.1 "Grammar"), shared by the valgrind backend's
 * totals (counters/valgrind/valgrind.c) and the exact profiles built from the same files
 * (harness/3-profile/callgrind.c), so that both read a line the same way. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when s starts with prefix. */
bool pmc_vgf_starts_with(const char *s, const char *prefix);

/* The next token of *s separated by spaces or tabs (the grammar's Space), or NULL at the
 * end of the line; advances *s past it and sets *ret_len to its length. */
const char *pmc_vgf_token(const char **s, size_t *ret_len);

/* A cost: decimal digits only (callgrind and cachegrind write costs in decimal). Returns
 * 0, -EINVAL when tok is empty or not all digits, -EOVERFLOW when it does not fit in 64
 * bits (a caller with a lower limit checks it itself). */
int pmc_vgf_count(const char *tok, size_t len, uint64_t *ret);

/* A subposition of a cost or call line (grammar: Number | "+" Number | "-" Number |
 * "*", where Number is decimal or "0x" hex). Only checks its form: the profiles sum
 * costs per function and never need the line or the address. Returns 0 or -EINVAL. */
int pmc_vgf_subposition(const char *tok, size_t len);
