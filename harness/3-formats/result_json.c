/* The result JSON codec, schema pmcbench-result/1 (docs/result-schema.md); this file
 * loads a file, the others of result_json_priv.h check, write and convert.
 *
 * JSON is jansson's job: saving converts the model to jansson trees, a benchmark at a
 * time, and dumps them; loading parses the file with jansson, a top-level member and a
 * benchmark at a time, and converts each tree to the model, checking every rule of the
 * schema on the way. A file that is not valid, or not laid out as expected, is parsed
 * again whole, so that syntax errors come with jansson's line and column and schema
 * errors with the JSON path of the value at fault. jansson is used as it comes: the
 * library installs no allocator hooks (docs/api.md). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/error.h"
#include "core/result.h"
#include "core/result_priv.h"
#include "formats/result_json.h"
#include "formats/result_json_priv.h"

/* Feeds jansson the file through stdio's buffer (jansson asks for 1 KiB at a time), and
 * notes what the messages need: read errors, a byte order mark, whether the file holds
 * anything but white space. */
struct text_source {
	FILE *f;
	int error; /* errno of a failed read, else 0 */
	bool started, bom, any_text;
	uint64_t total; /* bytes read, at most PMC_INPUT_MAX */
};

static size_t read_text(void *buf, size_t len, void *arg)
{
	struct text_source *src = arg;
	unsigned char *p = buf;
	size_t n = fread(buf, 1, len, src->f);

	if (n < len && ferror(src->f)) {
		src->error = errno ? errno : EIO;
		return (size_t)-1;
	}
	src->total += n;
	if (src->total > PMC_INPUT_MAX) {
		src->error = EFBIG;
		return (size_t)-1;
	}
	/* A UTF-8 byte order mark is not JSON, but editors add it: skip it. */
	if (!src->started && n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		memmove(p, p + 3, n - 3);
		n -= 3;
		src->bom = true;
	}
	src->started = true;
	for (size_t i = 0; i < n && !src->any_text; i++)
		src->any_text = p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r';
	return n;
}

/* What to do about a syntax error jansson found. */
static const char *syntax_fix(enum json_error_code code)
{
	switch (code) {
	case json_error_premature_end_of_input:
		return "the file is truncated — " REGEN;
	case json_error_end_of_input_expected:
		return "text follows the end of the result — " REGEN;
	case json_error_duplicate_key:
		return "a key given twice is ambiguous — " REGEN;
	case json_error_numeric_overflow:
		return "numbers must fit in a double, integers in 64 signed bits — " REGEN;
	default:
		return "the file is not valid JSON — " REGEN;
	}
}

/* The messages are one line, shown escaped: a key or a bit of text jansson quotes may
 * hold a control character. */
static void one_line(char *err, size_t errlen)
{
	pmc_err_escape(err, errlen);
}

/* Parses the whole file into one jansson tree and converts it. */
static int load_file(FILE *f, struct loader *ld, struct pmc_result *res)
{
	struct text_source src = {.f = f};
	json_error_t jerr;
	json_t *root;

	root = json_load_callback(read_text, &src, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (root) {
		int rc = pmc_result_from_json(ld, root, res);

		json_decref(root);
		return rc;
	}
	if (src.error)
		return -src.error;
	if (json_error_code(&jerr) == json_error_out_of_memory)
		return -ENOMEM;
	if (!src.any_text) {
		pmc_err_set(ld->err, ld->errlen,
			    "%s: empty file; expected a pmcbench result — regenerate it with "
			    "pmcbench run -o FILE",
			    ld->file);
		return -EINVAL;
	}
	/* jansson counts columns in characters, from 1; the byte order mark was one. */
	pmc_err_set(ld->err, ld->errlen, "%s:%d:%d: %s; %s", ld->file, jerr.line,
		    jerr.column + (src.bom && jerr.line == 1), jerr.text,
		    syntax_fix(json_error_code(&jerr)));
	return -EINVAL;
}

int pmc_result_load_stream(FILE *f, bool rereadable, const char *name, struct pmc_result **ret,
			   char *err, size_t errlen)
{
	struct loader ld = {.file = name, .err = err, .errlen = errlen};
	struct pmc_result *res = NULL;
	int rc;

	if (pmc_result_alloc(&res) < 0)
		return -ENOMEM;
	/* A benchmark at a time when the file can be read again from the start, should
	 * the whole document have to be parsed after all. */
	rc = rereadable ? pmc_result_load_windowed(f, &ld, res) : RETRY_WHOLE;
	if (rc == RETRY_WHOLE) {
		pmc_result_free(res);
		res = NULL;
		if (pmc_result_alloc(&res) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		ld.depth = 0;
		pmc_err_set(err, errlen, "%s", "");
		if (rereadable && fseek(f, 0, SEEK_SET) < 0) {
			rc = -errno;
			goto out;
		}
		clearerr(f);
		rc = load_file(f, &ld, res);
	}
out:
	if (rc < 0) {
		if (rc == -EFBIG)
			pmc_err_set(err, errlen,
				    "%s: more than 1 GiB, larger than any result; is it the right "
				    "file?",
				    name);
		else if (rc != -EINVAL)
			pmc_err_set(err, errlen, "%s: cannot read: %s", name, strerror(-rc));
		pmc_result_free(res);
		one_line(err, errlen);
		return rc;
	}
	*ret = res;
	return 0;
}

int pmc_input_check(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if (S_ISDIR(st->st_mode)) {
		pmc_err_set(
		    err, errlen,
		    "%s: is a directory; give the path of a result file (pmcbench run -o FILE)",
		    path);
		return -EINVAL;
	}
	if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode)) {
		pmc_err_set(err, errlen,
			    "%s: is not a regular file or a pipe (a device?); give the path of a "
			    "result file (pmcbench run -o FILE)",
			    path);
		return -EINVAL;
	}
	return 0;
}

int pmc_result_load(const char *path, struct pmc_result **ret, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int rc;

	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		pmc_err_set(err, errlen, "%s: %s; check the file name and its permissions", path,
			    strerror(errno));
		return rc;
	}
	if (fstat(fileno(f), &st) < 0) {
		rc = -errno;
		pmc_err_set(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = pmc_input_check(path, &st, err, errlen);
	if (rc < 0)
		goto out;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	rc = pmc_result_load_stream(f, S_ISREG(st.st_mode), path, ret, err, errlen);
out:
	fclose(f);
	return rc;
}
