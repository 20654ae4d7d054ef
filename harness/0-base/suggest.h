/* "Did you mean": the names close to a mistyped one, and the words that offer them. One
 * rule for every place that suggests (event names, PMUs, metric ids; docs/events.md,
 * "Errors"), so a typo is treated alike wherever it is made. */
#pragma once

#include <stddef.h>

#define PMC_SUGGEST_MAX 3 /* names offered at most */
#define PMC_SUGGEST_NAME_MAX 128
#define PMC_SUGGEST_LEN 96 /* longer words are never compared */

/* Optimal string alignment distance (Levenshtein plus the swap of two adjacent
 * characters as one edit), case-insensitive: "cylces" is 1 from "cycles". Returns
 * SIZE_MAX when either length exceeds PMC_SUGGEST_LEN. */
size_t pmc_edit_distance(const char *a, size_t la, const char *b, size_t lb);

/* The rule for "close": a known name is close to a typed word of len characters when
 * its distance d is at most 1 for words up to 3 characters, 2 up to 8, 3 beyond, and
 * smaller than len (replacing every character is not a typo). A known name that starts
 * with a typed word of at least 3 characters counts as at most 2 away ("inst" offers
 * "instructions"). Returns the distance to rank by, or SIZE_MAX when not close. */
size_t pmc_suggest_closeness(const char *typed, size_t len, const char *known);

/* The closest names seen so far, nearest first (ties keep the order offered). */
struct pmc_suggest {
	const char *typed;
	size_t len;
	size_t n;
	size_t dist[PMC_SUGGEST_MAX];
	char names[PMC_SUGGEST_MAX][PMC_SUGGEST_NAME_MAX];
};

/* Starts a search for names close to typed[0..len). */
void pmc_suggest_init(struct pmc_suggest *s, const char *typed, size_t len);

/* Offers a known name: key is compared with the typed word and display is what the
 * message shows (they differ for "pmu/event/", where only the event is compared).
 * Duplicates of a display already kept are ignored. */
void pmc_suggest_offer(struct pmc_suggest *s, const char *key, const char *display);

/* Writes "did you mean 'a', 'b' or 'c'?" into buf (cut at size, always terminated),
 * or "" when nothing was close. Returns the number of names offered. */
size_t pmc_suggest_format(const struct pmc_suggest *s, char *buf, size_t size);

/* Appends "; did you mean ...?" to the message in buf, or "; " and fallback when
 * nothing was close (fallback NULL: nothing). */
void pmc_suggest_append(const struct pmc_suggest *s, char *buf, size_t size, const char *fallback);
