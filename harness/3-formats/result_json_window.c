/* The result JSON codec: loading a file a top-level member and a benchmark at a time
 * (docs/result-schema.md, "Size and speed"), with a benchmark's derived summaries blanked
 * before jansson parses it. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/grow.h"
#include "core/result.h"
#include "core/result_priv.h"
#include "formats/result_json_priv.h"

/* jansson has no streaming parser: the tree of a whole result is about eight times the
 * size of its text (a file of 10,000 benchmarks: 31 MB of text, a 245 MiB tree), and
 * compare holds two. So a well-formed file is read one top-level member and one
 * benchmark at a time, each parsed by jansson from a window of the file, converted,
 * and dropped; only the punctuation between them (braces, brackets, colons, commas,
 * white space) is scanned here. Anything this path does not expect (a syntax error, a
 * schema error, "benchmarks" before "schema", a duplicate key, a file that is not
 * seekable) sends the load back to the start, to parse the whole document into one
 * tree: every error is reported by that path, exactly as jansson and the checks of
 * the tree conversion see it. */

#define WINDOW (128u << 10) /* text parsed at once; doubled for a larger value */
/* A benchmark whose text is larger is parsed a member and a metric at a time: the tree of
 * a benchmark of 100,000 runs (20 MB of text) was 160 MB, next to two models of 26 MB. */
#define BIG_BENCHMARK (4u << 20)
#define PIECEWISE 2 /* window_value: a benchmark to parse piecewise */

/* The window: buf[start, end) holds the file's text from the reading position. */
struct text_window {
	FILE *f;
	char *buf;
	size_t cap, start, end;
	bool eof;
};

/* Makes at least want bytes from the reading position available, or all that is left. */
static int window_fill(struct text_window *w, size_t want)
{
	size_t n = w->end - w->start;

	if (n >= want || w->eof)
		return 0;
	if (pmc_grow_to(&w->buf, &w->cap, want * 2, 1) < 0)
		return -ENOMEM;
	memmove(w->buf, w->buf + w->start, n);
	w->start = 0;
	w->end = n;
	while (w->end < w->cap && !w->eof) {
		size_t got = fread(w->buf + w->end, 1, w->cap - w->end, w->f);

		w->end += got;
		if (got == 0) {
			if (ferror(w->f))
				return RETRY_WHOLE; /* which reports the read error */
			w->eof = true;
		}
	}
	return 0;
}

/* The next character after white space, not consumed, or EOF. */
static int window_peek(struct text_window *w, int *ret)
{
	char c;
	int rc;

	for (;;) {
		if (w->start == w->end && (rc = window_fill(w, WINDOW)) != 0)
			return rc;
		if (w->start == w->end) {
			*ret = EOF;
			return 0;
		}
		c = w->buf[w->start];
		if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
			break;
		w->start++;
	}
	*ret = (unsigned char)c;
	return 0;
}

/* Consumes the next character after white space if it is one of chars; *ret is the one
 * it was, or RETRY_WHOLE is returned. */
static int window_expect(struct text_window *w, const char *chars, int *ret)
{
	int c, rc;

	if ((rc = window_peek(w, &c)) != 0)
		return rc;
	if (c == EOF || c == '\0' || !strchr(chars, c))
		return RETRY_WHOLE;
	w->start++;
	if (ret)
		*ret = c;
	return 0;
}

/* The metrics' "summary" objects are derived and not read, yet they are a third of a
 * file's text, and jansson would build a tree of each, check it, and drop it: a file of
 * 10,000 benchmarks loaded 45% slower with them. So before jansson parses a benchmark,
 * one pass over its text finds where it ends and blanks each metric's summary member
 * ("summary":{...} with one comma beside it) with spaces: a few byte comparisons each,
 * no tree. The pass reads strings with their escapes (a name holding "summary":{ is
 * a string, not a key), brackets must pair up, and only a literal key "summary" of an
 * object in "metrics" whose value is an object is blanked; anything else is left to
 * jansson as it is. What a skipped summary holds is not checked beyond its brackets and
 * strings, as its values were not checked before. */

enum scan { SCAN_DONE, SCAN_MORE, SCAN_GIVE_UP };

#define SCAN_DEPTH 64 /* deeper text is left to jansson */

static size_t skip_space(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

/* Blanks the summaries of the benchmark object that s starts with (after white space)
 * and sets *ret_end past its '}';
 * SCAN_MORE: it goes on past n; SCAN_GIVE_UP: not an object this pass understands. */
static enum scan blank_summaries(char *s, size_t n, size_t *ret_end)
{
	bool closes_object[SCAN_DEPTH + 1];
	size_t depth = 0, blank_from = 0, blank_depth = 0, i = skip_space(s, 0, n);
	bool metrics_next = false, in_metrics = false;

	if (i == n || s[i] != '{')
		return i == n ? SCAN_MORE : SCAN_GIVE_UP;
	while (i < n) {
		char c = s[i];

		if (c == '"') {
			size_t k, from = i + 1;

			for (i = from; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			if (i >= n)
				return SCAN_MORE;
			k = skip_space(s, ++i, n);
			if (k >= n)
				return SCAN_MORE;
			if (s[k] != ':' || !closes_object[depth])
				continue;
			/* A key. */
			if (depth == 1)
				metrics_next =
				    i - from - 1 == 7 && memcmp(s + from, "metrics", 7) == 0;
			if (depth == 3 && in_metrics && !blank_depth && i - from - 1 == 7 &&
			    memcmp(s + from, "summary", 7) == 0) {
				k = skip_space(s, k + 1, n);
				if (k >= n)
					return SCAN_MORE;
				if (s[k] == '{') {
					blank_from = from - 1;
					blank_depth = depth;
				}
			}
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == SCAN_DEPTH)
				return SCAN_GIVE_UP;
			closes_object[++depth] = c == '{';
			if (depth == 2)
				in_metrics = metrics_next && c == '{';
		} else if (c == '}' || c == ']') {
			if (depth == 0 || closes_object[depth] != (c == '}'))
				return SCAN_GIVE_UP;
			if (--depth == 0) {
				*ret_end = i + 1;
				return SCAN_DONE;
			}
			if (depth == blank_depth && blank_depth) {
				/* The summary ends here: blank it with the comma after it, or else
				 * the one before it (it was the last member). */
				size_t to = i + 1, k = skip_space(s, to, n), before = blank_from;

				if (k >= n)
					return SCAN_MORE;
				if (s[k] == ',') {
					to = k + 1;
				} else {
					while (before > 0 && strchr(" \t\r\n", s[before - 1]))
						before--;
					if (before > 0 && s[before - 1] == ',')
						blank_from = before - 1;
				}
				memset(s + blank_from, ' ', to - blank_from);
				blank_depth = 0;
				i = to;
				continue;
			}
		}
		i++;
	}
	return SCAN_MORE;
}

/* Parses the JSON value at the reading position with jansson. A value that jansson finds
 * cut by the end of the window is parsed again from a window twice as large. A
 * benchmark's summaries are blanked first (blank_summaries). */
static int window_value(struct text_window *w, bool benchmark, json_t **ret)
{
	size_t want = WINDOW;
	json_error_t jerr;
	json_t *v;
	int rc;

	for (;;) {
		size_t n, end;
		bool whole = false; /* buf[start, start + n) is the whole value */

		if ((rc = window_fill(w, want)) != 0)
			return rc;
		n = w->end - w->start;
		if (benchmark) {
			switch (blank_summaries(w->buf + w->start, n, &end)) {
			case SCAN_DONE:
				n = end;
				whole = true;
				break;
			case SCAN_MORE:
				if (!w->eof && n >= BIG_BENCHMARK)
					return PIECEWISE;
				if (!w->eof) {
					want = n * 2;
					continue;
				}
				break;
			case SCAN_GIVE_UP:
				benchmark = false;
				break;
			}
		}
		v = json_loadb(w->buf + w->start, n,
			       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK,
			       &jerr);
		if (!v && json_error_code(&jerr) == json_error_out_of_memory)
			return -ENOMEM;
		/* A value that ends at the very end of the window may go on (a number). */
		if (v && ((size_t)jerr.position < n || w->eof || whole)) {
			w->start += (size_t)jerr.position;
			*ret = v;
			return 0;
		}
		json_decref(v);
		if (w->eof || whole)
			return RETRY_WHOLE;
		want = n * 2;
	}
}

/* The members of a benchmark's "metrics", each parsed, converted into b and dropped. */
static int window_metrics(struct text_window *w, struct loader *ld, struct pmc_benchmark *b)
{
	json_t *key = NULL, *v = NULL;
	int c, rc;

	if ((rc = window_expect(w, "{", NULL)) != 0 || (rc = window_peek(w, &c)) != 0)
		return rc;
	if (c == '}') {
		w->start++;
		return 0;
	}
	do {
		if ((rc = window_peek(w, &c)) != 0)
			return rc;
		if (c != '"')
			return RETRY_WHOLE;
		if ((rc = window_value(w, false, &key)) != 0)
			return rc;
		if ((rc = window_expect(w, ":", NULL)) == 0 &&
		    (rc = window_value(w, false, &v)) == 0) {
			/* A metric given twice is for the whole-document path to report. */
			if (pmc_benchmark_find_metric(b, json_string_value(key)))
				rc = RETRY_WHOLE;
			else
				rc = pmc_benchmark_metric_from_json(ld, json_string_value(key), v,
								    b);
			if (rc < 0 && rc != -ENOMEM)
				rc = RETRY_WHOLE;
		}
		json_decref(key);
		json_decref(v);
		key = v = NULL;
		if (rc != 0 || (rc = window_expect(w, ",}", &c)) != 0)
			return rc;
	} while (c == ',');
	return 0;
}

/* A benchmark too large to parse whole (window_value said PIECEWISE), into b: its members
 * up to "metrics" into one tree, converted when "metrics" comes (its runs first, as
 * pmcbench writes them), then each metric in turn. Returns 0, -ENOMEM or RETRY_WHOLE. */
static int window_benchmark_pieces(struct text_window *w, struct loader *ld,
				   struct pmc_benchmark *b)
{
	json_t *head = json_object(), *key = NULL, *v;
	int c, rc;

	if (!head)
		return -ENOMEM;
	if ((rc = window_expect(w, "{", NULL)) != 0)
		goto out;
	for (;;) {
		const char *k;

		if ((rc = window_peek(w, &c)) != 0)
			goto out;
		if (c != '"') {
			rc = RETRY_WHOLE;
			goto out;
		}
		if ((rc = window_value(w, false, &key)) != 0 ||
		    (rc = window_expect(w, ":", NULL)) != 0)
			goto out;
		k = json_string_value(key);
		if (json_object_get(head, k) ||
		    (strcmp(k, "metrics") == 0 && !json_object_get(head, "runs"))) {
			rc = RETRY_WHOLE;
			goto out;
		}
		if (strcmp(k, "metrics") == 0)
			break;
		if ((rc = window_value(w, false, &v)) != 0)
			goto out;
		if (json_object_set_new(head, k, v) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		json_decref(key);
		key = NULL;
		if ((rc = window_expect(w, ",", NULL)) != 0)
			goto out;
	}
	/* The head with no metrics, its tree dropped before the metrics are parsed. */
	if ((v = json_object()) == NULL || json_object_set_new(head, "metrics", v) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	rc = pmc_benchmark_from_json(ld, head, b);
	json_object_clear(head);
	if (rc < 0 || b->skipped) {
		/* A skipped benchmark with metrics, too, is the whole path's to report. */
		rc = rc == -ENOMEM ? rc : RETRY_WHOLE;
		goto out;
	}
	/* Members after "metrics" are not converted: the whole path reads them. */
	if ((rc = window_metrics(w, ld, b)) == 0)
		rc = window_expect(w, "}", NULL);
out:
	json_decref(key);
	json_decref(head);
	return rc;
}

/* The elements of "benchmarks", each parsed, converted and dropped in turn. */
static int window_benchmarks(struct text_window *w, struct loader *ld, struct pmc_result *res)
{
	size_t dup;
	int c, rc;

	if ((rc = window_expect(w, "[", NULL)) != 0 || (rc = window_peek(w, &c)) != 0)
		return rc;
	if (c == ']') {
		w->start++;
		return 0;
	}
	push_key(ld, "benchmarks");
	push_index(ld, 0);
	do {
		struct pmc_benchmark *b;
		json_t *v;

		if ((rc = pmc_result_bench_reserve(res)) < 0 ||
		    ((rc = window_value(w, true, &v)) != 0 && rc != PIECEWISE))
			return rc;
		set_index(ld, res->nbench);
		b = &res->benchmarks[res->nbench++];
		memset(b, 0, sizeof(*b));
		if (rc == PIECEWISE) {
			rc = window_benchmark_pieces(w, ld, b);
			if (rc == RETRY_WHOLE)
				return rc;
		} else {
			rc = pmc_benchmark_from_json(ld, v, b);
			json_decref(v);
		}
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return RETRY_WHOLE;
		rc = pmc_result_index(res, &dup);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return RETRY_WHOLE;
		if ((rc = window_expect(w, ",]", &c)) != 0)
			return rc;
	} while (c == ',');
	pop(ld);
	pop(ld);
	return 0;
}

/* Loads a result from f a member and a benchmark at a time. Returns 0, -ENOMEM, or
 * RETRY_WHOLE when the file is to be parsed whole instead. */
int pmc_result_load_windowed(FILE *f, struct loader *ld, struct pmc_result *res)
{
	struct text_window w = {.f = f};
	json_t *head = json_object(), *key = NULL, *v;
	bool benchmarks = false;
	int c, rc;

	if (!head)
		return -ENOMEM;
	if ((rc = window_fill(&w, WINDOW)) != 0)
		goto out;
	if (w.end >= 3 && memcmp(w.buf, "\xef\xbb\xbf", 3) == 0)
		w.start = 3;
	if ((rc = window_expect(&w, "{", NULL)) != 0)
		goto out;
	do {
		const char *k;

		if ((rc = window_peek(&w, &c)) != 0)
			goto out;
		if (c != '"') {
			rc = RETRY_WHOLE;
			goto out;
		}
		if ((rc = window_value(&w, false, &key)) != 0 ||
		    (rc = window_expect(&w, ":", NULL)) != 0)
			goto out;
		k = json_string_value(key);
		/* A duplicate key, or a schema this version does not read (or none before the
		 * benchmarks), is for the whole-document path to report. */
		if (json_object_get(head, k) || (benchmarks && strcmp(k, "benchmarks") == 0)) {
			rc = RETRY_WHOLE;
			goto out;
		}
		if (strcmp(k, "benchmarks") == 0) {
			benchmarks = true;
			if (!json_object_get(head, "schema") ||
			    pmc_result_schema_check(ld, head) < 0) {
				rc = RETRY_WHOLE;
				goto out;
			}
			if ((rc = window_benchmarks(&w, ld, res)) != 0)
				goto out;
		} else {
			if ((rc = window_value(&w, false, &v)) != 0)
				goto out;
			if (json_object_set_new(head, k, v) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
		json_decref(key);
		key = NULL;
		if ((rc = window_expect(&w, ",}", &c)) != 0)
			goto out;
	} while (c == ',');
	if ((rc = window_peek(&w, &c)) != 0)
		goto out;
	if (c != EOF || !benchmarks) {
		rc = RETRY_WHOLE;
		goto out;
	}
	rc = pmc_result_head_from_json(ld, head, res);
	if (rc < 0 && rc != -ENOMEM)
		rc = RETRY_WHOLE;
out:
	json_decref(key);
	json_decref(head);
	free(w.buf);
	return rc;
}
