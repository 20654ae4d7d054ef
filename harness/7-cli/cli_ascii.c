/* Plain ASCII output when the locale's character set is not UTF-8 (LC_ALL=C, a serial
 * console): the reports' few symbols spelled in ASCII ("±" as "+-", "…" as "..."), any
 * other non-ASCII character as "?". main() and a benchmark program's command line
 * (pmc_main_defs) ask pmc_cli_locale_ascii(); a program that links libpmcbench without
 * them keeps its streams as they are. */
#include <langinfo.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static bool ascii_wanted;
/* The streams replaced, and by what, for pmc_cli_ascii_finish(). */
static struct {
	FILE **where, *orig;
} wrapped[2];

void pmc_cli_set_ascii(bool ascii)
{
	ascii_wanted = ascii;
}

bool pmc_cli_locale_ascii(void)
{
	/* The locale the environment names, read without setlocale(): a program that links
	 * libpmcbench keeps its own. */
	locale_t l = newlocale(LC_CTYPE_MASK, "", (locale_t)0);
	bool ascii;

	if (!l)
		return true; /* a locale that does not exist is the C locale's ASCII */
	ascii = strcmp(nl_langinfo_l(CODESET, l), "UTF-8") != 0;
	freelocale(l);
	return ascii;
}

/* What the reports write, in ASCII. */
static const struct {
	const char *utf8, *ascii;
} spell[] = {
    {"±", "+-"},
    {"…", "..."},
    {"→", "->"},
    {"∞", "inf"},
    {"·", "-"},
    {"—", "--"},
    {"µ", "u"},
    {"≥", ">="},
    {"≤", "<="},
    {"×", "x"},
    /* report --tree's guides, a column each as in UTF-8 */
    {"│", "|"},
    {"├", "|"},
    {"└", "`"},
    {"─", "-"},
};

struct ascii_stream {
	FILE *to;
	unsigned char part[4]; /* a character split between two writes */
	size_t npart, need;
};

static size_t seq_len(unsigned char c)
{
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

static void put_char(struct ascii_stream *s, const unsigned char *ch, size_t n)
{
	for (size_t i = 0; i < sizeof(spell) / sizeof(spell[0]); i++)
		if (strlen(spell[i].utf8) == n && memcmp(spell[i].utf8, ch, n) == 0) {
			fputs(spell[i].ascii, s->to);
			return;
		}
	fputc('?', s->to);
}

static ssize_t ascii_write(void *cookie, const char *buf, size_t len)
{
	struct ascii_stream *s = cookie;
	const unsigned char *p = (const unsigned char *)buf;

	for (size_t i = 0; i < len; i++) {
		if (s->npart) {
			/* A continuation byte completes the character; anything else ends a
			 * broken one, which is written as "?". */
			if ((p[i] & 0xc0) == 0x80) {
				s->part[s->npart++] = p[i];
				if (s->npart == s->need) {
					put_char(s, s->part, s->npart);
					s->npart = 0;
				}
				continue;
			}
			fputc('?', s->to);
			s->npart = 0;
		}
		if (p[i] < 0x80) {
			fputc(p[i], s->to);
		} else if (p[i] >= 0xc0 && p[i] < 0xf8) {
			s->part[0] = p[i];
			s->npart = 1;
			s->need = seq_len(p[i]);
		} else {
			fputc('?', s->to);
		}
	}
	if (ferror(s->to))
		return -1;
	return (ssize_t)len;
}

static int ascii_close(void *cookie)
{
	struct ascii_stream *s = cookie;
	int r;

	if (s->npart)
		fputc('?', s->to);
	r = fflush(s->to);
	free(s);
	return r;
}

int pmc_cli_ascii_wrap(FILE **stream)
{
	static const cookie_io_functions_t io = {.write = ascii_write, .close = ascii_close};
	struct ascii_stream *s;
	FILE *f;

	if (!ascii_wanted)
		return 0;
	/* Once: `run --library` and a benchmark program's command line both ask. */
	for (size_t i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
		if (wrapped[i].where == stream)
			return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->to = *stream;
	f = fopencookie(s, "w", io);
	if (!f) {
		free(s);
		return -1;
	}
	/* Line-buffered like a terminal, so that stderr's lines and stdout's interleave. */
	setvbuf(f, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
		if (!wrapped[i].where) {
			wrapped[i].where = stream;
			wrapped[i].orig = *stream;
			break;
		}
	*stream = f;
	return 0;
}

int pmc_cli_ascii_finish(void)
{
	int r = 0;

	for (size_t i = sizeof(wrapped) / sizeof(wrapped[0]); i-- > 0;)
		if (wrapped[i].where) {
			if (fclose(*wrapped[i].where) != 0)
				r = -1;
			*wrapped[i].where = wrapped[i].orig;
			wrapped[i].where = NULL;
		}
	return r;
}
