/* Other tools' profiles in (profile_import.h): the format told by the content, and
 * folded stacks. perf script's output is perf_script.c's. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "profile/profile.h"
#include "profile/profile_import.h"
#include "profile/profile_import_priv.h"

#define FOLDED_FIX                                                                                 \
	"give folded stacks as flamegraph.pl reads them, one 'frame;frame;...;frame COUNT' "       \
	"a line (stackcollapse-perf.pl's output, or pmcbench report --folded)"

int pmc_profile_lines_next(struct pmc_profile_lines *l)
{
	ssize_t n;

	if (l->again) {
		l->again = false;
		return 1;
	}
	errno = 0;
	n = getline(&l->line, &l->cap, l->f);
	if (n < 0)
		return ferror(l->f) ? -(errno ? errno : EIO) : 0;
	l->no++;
	l->len = (size_t)n;
	if (memchr(l->line, '\0', l->len))
		return -EINVAL;
	while (l->len && (l->line[l->len - 1] == '\n' || l->line[l->len - 1] == '\r'))
		l->line[--l->len] = '\0';
	return 1;
}

/* The folded stacks' frames have no object: the file does not name them. */
#define FOLDED_OBJECT "[folded]"

/* A growing array of frame ids, kept from line to line. */
struct ids {
	uint32_t *v;
	size_t cap;
};

/* One line "frame;...;frame COUNT" added to p. Returns 0, -EINVAL with the message in err,
 * -ENOMEM. */
static int folded_line(struct pmc_profile_lines *l, struct pmc_profile *p, struct ids *ids,
		       uint64_t *samples, char *err, size_t errlen)
{
	char *line = l->line, *sp, *end, *frame, *next;
	uint32_t depth = 0;
	bool truncated = false;
	unsigned long long count;
	int rc;

	sp = strrchr(line, ' ');
	if (!sp || !sp[1] || strspn(sp + 1, "0123456789") != strlen(sp + 1)) {
		pmc_err_set(err, errlen, "%s:%lu: no count at the end of the line; " FOLDED_FIX,
			    l->path, l->no);
		return -EINVAL;
	}
	errno = 0;
	count = strtoull(sp + 1, NULL, 10);
	if (errno == ERANGE) {
		pmc_err_set(err, errlen, "%s:%lu: count %s is beyond 2^64-1; " FOLDED_FIX, l->path,
			    l->no, sp + 1);
		return -EINVAL;
	}
	end = sp;
	while (end > line && end[-1] == ' ')
		end--;
	*end = '\0';
	/* difffolded.pl's output has two counts: the stack ends in a number. */
	sp = strrchr(line, ' ');
	if (sp && sp[1] && strspn(sp + 1, "0123456789") == strlen(sp + 1)) {
		pmc_err_set(err, errlen,
			    "%s:%lu: two counts (difffolded.pl's output?); give each profile's own "
			    "folded stacks and compare them with pmcbench report --diff OLD NEW",
			    l->path, l->no);
		return -EINVAL;
	}
	for (frame = line; frame; frame = next) {
		next = strchr(frame, ';');
		if (next)
			*next++ = '\0';
		if (!*frame) {
			pmc_err_set(err, errlen, "%s:%lu: %s; " FOLDED_FIX, l->path, l->no,
				    line == end ? "no stack before the count"
						: "an empty frame name (';;' or a ';' at an end)");
			return -EINVAL;
		}
		/* pmcbench's own folded stacks start a cut call chain with this frame. */
		if (depth == 0 && !truncated && next && !strcmp(frame, "[truncated]")) {
			truncated = true;
			continue;
		}
		if (depth == UINT32_MAX ||
		    pmc_grow_to(&ids->v, &ids->cap, (size_t)depth + 1, sizeof(*ids->v)) < 0)
			return -ENOMEM;
		rc = pmc_profile_frame_id(p, frame, FOLDED_OBJECT, 0, &ids->v[depth]);
		if (rc < 0)
			return rc;
		depth++;
	}
	rc = pmc_profile_add(p, ids->v, depth, count, count, truncated);
	if (rc == -EOVERFLOW) {
		pmc_err_set(err, errlen, "%s:%lu: the counts add up beyond 2^64-1; " FOLDED_FIX,
			    l->path, l->no);
		return -EINVAL;
	}
	*samples += count;
	return rc;
}

int pmc_profile_read_folded(struct pmc_profile_lines *l, struct pmc_profile **ret, char *err,
			    size_t errlen)
{
	/* A count is what flamegraph.pl calls samples; the file says nothing of the event. */
	const struct pmc_profile_info in = {.kind = PMC_PROFILE_SAMPLED,
					    .event = "samples",
					    .unit = "samples",
					    .lost_unknown = true};
	struct pmc_profile *p = NULL;
	struct ids ids = {0};
	uint64_t samples = 0;
	int rc;

	rc = pmc_profile_new(&in, &p);
	if (rc < 0)
		return rc;
	while ((rc = pmc_profile_lines_next(l)) > 0) {
		if (!l->len || l->line[0] == '#')
			continue;
		rc = folded_line(l, p, &ids, &samples, err, errlen);
		if (rc < 0)
			goto fail;
	}
	if (rc == -EINVAL)
		pmc_err_set(err, errlen, "%s:%lu: a NUL byte: not text; " FOLDED_FIX, l->path,
			    l->no);
	else if (rc < 0)
		pmc_err_set(err, errlen, "%s: cannot read: %s", l->path, strerror(-rc));
	if (rc < 0)
		goto fail;
	free(ids.v);
	pmc_profile_set_counts(p, samples, 0, 0);
	*ret = p;
	return 0;
fail:
	free(ids.v);
	pmc_profile_free(p);
	return rc;
}

/* The first line that says something (not blank, not a '#' comment), left for the
 * reader. Returns 1, 0 when there is none, or -errno. */
static int first_line(struct pmc_profile_lines *l)
{
	int rc;

	while ((rc = pmc_profile_lines_next(l)) > 0)
		if (l->len && l->line[0] != '#' && strspn(l->line, " \t") != l->len) {
			l->again = true;
			return 1;
		}
	return rc;
}

/* Whether line looks like folded stacks: no indent, a space and a count at its end. */
static bool is_folded(const char *line)
{
	const char *sp = strrchr(line, ' ');

	return !isspace((unsigned char)line[0]) && sp && sp > line && sp[1] &&
	       strspn(sp + 1, "0123456789") == strlen(sp + 1);
}

int pmc_profile_load_any(const char *path, struct pmc_profile **ret,
			 enum pmc_profile_format *ret_format, char *err, size_t errlen)
{
	struct pmc_profile_lines l = {.path = path};
	enum pmc_profile_format fmt = PMC_PROFILE_FORMAT_PMCBENCH;
	unsigned long blank = 0;
	int c, rc;

	if (!path || !ret)
		return -EINVAL;
	rc = pmc_profile_open(path, &l.f, err, errlen);
	if (rc < 0)
		goto out;
	/* The first character that is not white space, read from the stream itself: a pipe
	 * cannot be read twice. The lines it skips are counted for the text readers. */
	while ((c = getc(l.f)) != EOF && isspace(c))
		blank += c == '\n';
	if (c == '{' || c == '[') {
		ungetc(c, l.f);
		rc = pmc_profile_load_json(l.f, path, ret, err, errlen);
		goto out;
	}
	if (c == EOF && ferror(l.f)) {
		rc = -EIO;
		pmc_err_set(err, errlen, "%s: cannot read: %s", path, strerror(EIO));
		goto out;
	}
	if (c != EOF)
		ungetc(c, l.f);
	l.no = blank;
	rc = first_line(&l);
	if (rc == 0) {
		rc = -EINVAL;
		pmc_err_set(err, errlen,
			    "%s: empty (no stack in it); give a profile: pmcbench's (record -o), "
			    "folded stacks or perf script's output",
			    path);
	} else if (rc == -EINVAL) {
		pmc_err_set(err, errlen,
			    "%s:%lu: a NUL byte: not a text file; give a profile: "
			    "pmcbench's (record -o), folded stacks or perf script's output",
			    path, l.no);
	} else if (rc < 0) {
		pmc_err_set(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
	} else if (pmc_perf_script_is_header(l.line)) {
		fmt = PMC_PROFILE_FORMAT_PERF_SCRIPT;
		rc = pmc_profile_read_perf_script(&l, ret, err, errlen);
	} else if (is_folded(l.line)) {
		fmt = PMC_PROFILE_FORMAT_FOLDED;
		rc = pmc_profile_read_folded(&l, ret, err, errlen);
	} else {
		rc = -EINVAL;
		pmc_err_set(err, errlen,
			    "%s:%lu: not a profile pmcbench reads; give pmcbench's (record -o: "
			    "JSON), folded stacks ('main;parse;scan 42' lines) or the output of "
			    "perf script (its default fields) of a perf record -g file",
			    path, l.no);
	}
out:
	if (rc == 0 && ret_format)
		*ret_format = fmt;
	if (rc < 0)
		pmc_err_escape(err, errlen);
	free(l.line);
	if (l.f)
		fclose(l.f);
	return rc;
}
