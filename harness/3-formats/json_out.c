/* JSON text without raw DEL or C1 controls (json_out.h).
 *
 * jansson escapes the C0 controls but writes DEL and U+0080 to U+009F as they are, and a
 * terminal obeys them: U+009B is CSI, U+009D is OSC (a window title), so a benchmark name
 * could act on whoever runs `cat result.json`. JSON_ENSURE_ASCII would escape them, but
 * also every other non-ASCII character, making names such as "größe" or CJK names
 * unreadable in the file. So jansson's output is rewritten on its way out instead, and
 * only those 33 code points. Outside strings JSON text is ASCII punctuation, numbers and
 * words, and jansson's output is valid UTF-8, so every 0x7f byte and every 0xc2 lead byte
 * followed by 0x80-0x9f is one of them inside a string, where \u00XX means the same
 * character (RFC 8259, section 7): loading the text gives back the same string. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/utf8.h"
#include "formats/json_out.h"

struct filter {
	json_dump_callback_t cb;
	void *data;
	bool lead; /* the last chunk ended with a 0xc2 byte, not yet passed on */
};

static int put_escape(struct filter *f, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF"; /* as jansson writes \u001B */
	char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

	return f->cb(esc, sizeof(esc), f->data);
}

/* jansson passes a character's bytes in one call, but nothing promises it: a 0xc2 at the
 * end of a chunk waits for the next byte. */
static int filter_cb(const char *buf, size_t size, void *data)
{
	struct filter *f = data;
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, from = 0;

	if (f->lead && size > 0) {
		f->lead = false;
		if (p[0] >= 0x80 && p[0] <= 0x9f) {
			if (put_escape(f, p[0]) < 0)
				return -1;
			i = from = 1;
		} else if (f->cb("\xc2", 1, f->data) < 0) {
			return -1;
		}
	}
	for (; i < size; i++) {
		bool c1 = p[i] == 0xc2 && i + 1 < size && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f;

		if (p[i] != 0x7f && !c1 && !(p[i] == 0xc2 && i + 1 == size))
			continue;
		if (i > from && f->cb(buf + from, i - from, f->data) < 0)
			return -1;
		if (p[i] == 0xc2 && i + 1 == size) {
			f->lead = true;
			return 0;
		}
		if (c1)
			i++;
		if (put_escape(f, p[i]) < 0)
			return -1;
		from = i + 1;
	}
	if (size > from && f->cb(buf + from, size - from, f->data) < 0)
		return -1;
	return 0;
}

int pmc_json_dump_callback(const json_t *j, json_dump_callback_t cb, void *data, size_t flags)
{
	struct filter f = {cb, data, false};

	if (json_dump_callback(j, filter_cb, &f, flags) < 0)
		return -1;
	/* A lone 0xc2 at the very end cannot come from jansson; pass it on unchanged. */
	if (f.lead && cb("\xc2", 1, data) < 0)
		return -1;
	return 0;
}

static int file_cb(const char *buf, size_t size, void *data)
{
	return fwrite(buf, 1, size, data) == size ? 0 : -1;
}

int pmc_json_dumpf(const json_t *j, FILE *f, size_t flags)
{
	return pmc_json_dump_callback(j, file_cb, f, flags);
}

struct text {
	char *p;
	size_t len, cap;
};

static int text_cb(const char *buf, size_t size, void *data)
{
	struct text *t = data;

	if (size > SIZE_MAX - t->len - 1 || pmc_grow_to(&t->p, &t->cap, t->len + size + 1, 1) < 0)
		return -1;
	memcpy(t->p + t->len, buf, size);
	t->len += size;
	t->p[t->len] = '\0';
	return 0;
}

char *pmc_json_dumps(const json_t *j, size_t flags)
{
	struct text t = {0};

	if (pmc_json_dump_callback(j, text_cb, &t, flags) < 0 || !t.p) {
		free(t.p);
		return NULL;
	}
	return t.p;
}

int pmc_json_put_string(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	char *fixed = NULL, *q;
	json_t *j;
	int rc;

	if (!pmc_utf8_valid(s)) {
		fixed = malloc(4 * strlen(s) + 1);
		if (!fixed)
			return -ENOMEM;
		for (q = fixed; *u;) {
			size_t n = pmc_utf8_len(u);

			if (n) {
				memcpy(q, u, n);
				q += n;
				u += n;
			} else {
				*q++ = '\\';
				*q++ = 'x';
				*q++ = hex[*u >> 4];
				*q++ = hex[*u++ & 15];
			}
		}
		*q = '\0';
	}
	j = json_string(fixed ? fixed : s);
	free(fixed);
	if (!j)
		return -ENOMEM;
	rc = pmc_json_dumpf(j, f, JSON_ENCODE_ANY);
	json_decref(j);
	return rc < 0 ? -EIO : 0;
}
