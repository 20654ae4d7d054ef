/* The one sink every printed string passes (cli.h, "Control characters"): pmcbench's
 * stdout and stderr, through a stream that blanks what would drive a terminal or forge a
 * line of a CI log, whichever code printed it and whichever file, store or repository the
 * text came from. pmcbench's own sequences (the colours of the status and verdict words,
 * the progress line's erase) are the only ones let through. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8.h"
#include "cli/cli.h"

/* What pmcbench itself writes (reporters/table*.c, cli_session.c): SGR colours that only
 * colour (never conceal, blink or move), and, on a terminal's stderr, the progress line's
 * "back to the start and erase it". */
static const char *const sgr[] = {"\033[0m", "\033[33m", "\033[1;31m", "\033[1;32m", "\033[1;33m"};
static const char erase[] = "\r\033[K";

#define PENDING_MAX 8

/* --color=always: colour into a file or a pipe too. */
static bool colour_always;

void pmc_cli_controls_allow_colour(void)
{
	colour_always = true;
}

struct pmc_cli_controls {
	bool allow_colour; /* a terminal: pmcbench may colour what it writes */
	bool allow_erase;
	unsigned char pend[PENDING_MAX];
	size_t n;
};

/* Whether pend[0, n) is all of seq (1), a proper prefix of it (-1), or neither (0). */
static int match(const unsigned char *pend, size_t n, const char *seq)
{
	size_t len = strlen(seq);

	if (n > len || memcmp(pend, seq, n) != 0)
		return 0;
	return n == len ? 1 : -1;
}

/* One of pmcbench's own sequences at pend: its length (all of it there), 0 when it is
 * none, or SIZE_MAX when more bytes may still make one. */
static size_t own_sequence(const struct pmc_cli_controls *s, const unsigned char *pend, size_t n)
{
	bool partial = false;
	int m;

	for (size_t i = 0; (s->allow_colour || colour_always) && i < sizeof(sgr) / sizeof(sgr[0]);
	     i++) {
		m = match(pend, n, sgr[i]);
		if (m == 1)
			return n;
		partial = partial || m < 0;
	}
	if (s->allow_erase) {
		m = match(pend, n, erase);
		if (m == 1)
			return n;
		partial = partial || m < 0;
	}
	return partial ? SIZE_MAX : 0;
}

static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
}

/* Writes what the bytes at the start of s->pend show into out and returns how many it
 * took, or 0 when it needs more (never when last: the stream ends there). */
static size_t take(struct pmc_cli_controls *s, FILE *out, bool last)
{
	const unsigned char *p = s->pend;
	size_t n = s->n, own, need;

	if (p[0] == '\033' || p[0] == '\r') {
		own = own_sequence(s, p, n);
		if (own == SIZE_MAX && !last)
			return 0;
		if (own && own != SIZE_MAX) {
			fwrite(p, 1, own, out);
			return own;
		}
	}
	if (is_control(p[0]) || (p[0] >= 0x80 && p[0] <= 0x9f)) {
		/* C0, DEL, or a lone byte a terminal in an 8-bit mode takes for C1 (0x9b: CSI). */
		fputc(' ', out);
		return 1;
	}
	need = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 1;
	if (need == 1) {
		fputc(p[0], out);
		return 1;
	}
	for (size_t i = 1; i < n && i < need; i++)
		if ((p[i] & 0xc0) != 0x80)
			need = 1; /* cut short: the lead byte alone */
	if (need > n && !last)
		return 0;
	if (need > 1 && need <= n) {
		unsigned char one[5] = {0};

		memcpy(one, p, need);
		if (pmc_utf8_len(one) == need) {
			/* A C1 control as UTF-8 (U+0080-U+009F) is one, too. */
			if (p[0] == 0xc2 && p[1] <= 0x9f)
				fputc(' ', out);
			else
				fwrite(p, 1, need, out);
			return need;
		}
	}
	fputc(p[0], out);
	return 1;
}

static void drain(struct pmc_cli_controls *s, FILE *out, bool last)
{
	while (s->n) {
		size_t k = take(s, out, last);

		if (!k)
			return;
		memmove(s->pend, s->pend + k, s->n - k);
		s->n -= k;
	}
}

/* Printable ASCII, newline and tab, which pass as they are: most of every output. */
static bool plain(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
}

void pmc_cli_controls_filter(struct pmc_cli_controls *s, const char *buf, size_t len, FILE *out)
{
	for (size_t i = 0; i < len; i++) {
		if (!s->n && plain((unsigned char)buf[i])) {
			size_t run = 1;

			while (i + run < len && plain((unsigned char)buf[i + run]))
				run++;
			fwrite(buf + i, 1, run, out);
			i += run - 1;
			continue;
		}
		/* A sequence is at most PENDING_MAX bytes: one longer is none of ours. */
		s->pend[s->n++] = (unsigned char)buf[i];
		drain(s, out, false);
		if (s->n == PENDING_MAX)
			drain(s, out, true);
	}
}

void pmc_cli_controls_end(struct pmc_cli_controls *s, FILE *out)
{
	drain(s, out, true);
}

struct pmc_cli_controls *pmc_cli_controls_new(bool allow_colour, bool allow_erase)
{
	struct pmc_cli_controls *s = calloc(1, sizeof(*s));

	if (s) {
		s->allow_colour = allow_colour;
		s->allow_erase = allow_erase;
	}
	return s;
}

/* ---- the streams ---- */

struct stream {
	struct pmc_cli_controls *f;
	FILE *to;
};

static struct {
	FILE **where, *orig;
} wrapped[2];

static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
	struct stream *s = cookie;

	pmc_cli_controls_filter(s->f, buf, len, s->to);
	/* Straight through: a writer of fd 1 (an output named "-") comes after. */
	if (fflush(s->to) != 0 || ferror(s->to))
		return -1;
	return (ssize_t)len;
}

static int stream_close(void *cookie)
{
	struct stream *s = cookie;
	int r;

	pmc_cli_controls_end(s->f, s->to);
	r = fflush(s->to);
	free(s->f);
	free(s);
	return r;
}

int pmc_cli_controls_wrap(FILE **stream, bool allow_erase)
{
	static const cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
	struct stream *s = calloc(1, sizeof(*s));
	size_t slot = sizeof(wrapped) / sizeof(wrapped[0]);
	FILE *f = NULL;

	for (size_t i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
		if (!wrapped[i].where)
			slot = i;
	if (s && slot < sizeof(wrapped) / sizeof(wrapped[0]))
		s->f = pmc_cli_controls_new(isatty(fileno(*stream)) == 1, allow_erase);
	if (s && s->f)
		f = fopencookie(s, "w", io);
	if (!f) {
		if (s)
			free(s->f);
		free(s);
		return -1;
	}
	s->to = *stream;
	/* Buffered as the stream it replaces: lines on a terminal, blocks into a file or a
	 * pipe, nothing on stderr. */
	if (*stream == stderr)
		setvbuf(f, NULL, _IONBF, 0);
	else if (isatty(fileno(*stream)))
		setvbuf(f, NULL, _IOLBF, 0);
	wrapped[slot].where = stream;
	wrapped[slot].orig = *stream;
	*stream = f;
	return 0;
}

int pmc_cli_controls_finish(void)
{
	int r = 0;

	for (size_t i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
		if (wrapped[i].where) {
			if (fclose(*wrapped[i].where) != 0)
				r = -1;
			*wrapped[i].where = wrapped[i].orig;
			wrapped[i].where = NULL;
		}
	return r;
}
