/* Reports of profiles (profile_report.h): they render the model's views, never change
 * them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "profile/profile.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/profile_report.h"
#include "reporters/profile_report_priv.h"

/* ---- Stacks by display names ------------------------------------------------------ */

/* The stacks of one or two profiles as sequences of display-name ids, merged where the
 * sequences are equal: the folded stacks and the flame graphs draw these. */
struct fold {
	struct pmc_hashmap name_ids; /* display name -> id */
	char **names;
	size_t nnames, names_cap;
	struct pmc_hashmap seq_ids; /* encoded sequence -> index */
	char **keys;
	struct seq {
		size_t off; /* into pool */
		uint32_t depth;
		uint64_t weight, old_weight;
		uint64_t samples, old_samples;
	} * seqs;
	size_t nseqs, seqs_cap, keys_cap;
	uint32_t *pool;
	size_t npool, pool_cap;
};

static void fold_free(struct fold *f)
{
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i]);
	for (size_t i = 0; i < f->nseqs; i++)
		free(f->keys[i]);
	free(f->names);
	free(f->keys);
	free(f->seqs);
	free(f->pool);
	pmc_hashmap_free(&f->name_ids);
	pmc_hashmap_free(&f->seq_ids);
}

/* Six bits a byte, the last marked with 0x80 (the others are 1..64): no NUL, and each id
 * ends where its marked byte is. */
static size_t put_id(char *k, uint32_t id)
{
	size_t n = 0;

	while (id >= 64) {
		k[n++] = (char)(1 + (id & 63));
		id >>= 6;
	}
	k[n++] = (char)(0x80 | id);
	return n;
}

/* The id of display name name in f (taken: freed when f has it already). -ENOMEM. */
static int fold_name(struct fold *f, char *name, uint32_t *ret_id)
{
	size_t id;
	int r;

	if (!name || pmc_grow_to(&f->names, &f->names_cap, f->nnames + 1, sizeof(*f->names)) < 0) {
		free(name);
		return -ENOMEM;
	}
	r = pmc_hashmap_get_or_put(&f->name_ids, name, f->nnames, &id);
	if (r < 0) {
		free(name);
		return r;
	}
	if (r == 1)
		f->names[f->nnames++] = name;
	else
		free(name);
	*ret_id = (uint32_t)id;
	return 0;
}

/* Adds p's stacks to f, as new weights or (old) as old weights. A stack whose call chain
 * was cut starts with PMC_PROFILE_TRUNCATED_FRAME: its callers are missing, and drawn at
 * the root it would pass for a function that nothing called. */
static int fold_add(struct fold *f, const struct pmc_profile *p, bool old)
{
	size_t nf = pmc_profile_frame_count(p), ns = pmc_profile_stack_count(p);
	uint32_t *name_of = malloc((nf + 1) * sizeof(*name_of)), cut = UINT32_MAX;
	char *key = NULL;
	size_t key_cap = 0;
	int rc = -ENOMEM;

	if (!name_of)
		return -ENOMEM;
	for (uint32_t i = 0; i < nf; i++) {
		char buf[512];
		const struct pmc_profile_frame *fr = pmc_profile_frame(p, i);

		/* A symbol longer than the buffer is used as it is (it is its own name). */
		if (fold_name(f,
			      fr->symbol && strlen(fr->symbol) >= sizeof(buf)
				  ? strdup(fr->symbol)
				  : strdup(pmc_profile_frame_name(p, i, buf, sizeof(buf))),
			      &name_of[i]) < 0)
			goto out;
	}
	for (size_t s = 0; s < ns; s++) {
		const struct pmc_profile_stack *st = pmc_profile_stack(p, s);
		uint32_t depth = st->depth + (st->truncated ? 1 : 0);
		size_t klen = 0, idx;
		int r;

		if (st->truncated && cut == UINT32_MAX &&
		    fold_name(f, strdup(PMC_PROFILE_TRUNCATED_FRAME), &cut) < 0)
			goto out;
		if (pmc_grow_to(&key, &key_cap, (size_t)depth * 6 + 1, 1) < 0)
			goto out;
		if (st->truncated)
			klen += put_id(key + klen, cut);
		for (uint32_t d = 0; d < st->depth; d++)
			klen += put_id(key + klen, name_of[st->frames[d]]);
		key[klen] = 0;
		if (pmc_hashmap_get(&f->seq_ids, key, &idx) < 0) {
			char *copy = strdup(key);

			if (!copy ||
			    pmc_grow_to(&f->seqs, &f->seqs_cap, f->nseqs + 1, sizeof(*f->seqs)) <
				0 ||
			    pmc_grow_to(&f->keys, &f->keys_cap, f->nseqs + 1, sizeof(*f->keys)) <
				0 ||
			    pmc_grow_to(&f->pool, &f->pool_cap, f->npool + depth,
					sizeof(*f->pool)) < 0) {
				free(copy);
				goto out;
			}
			r = pmc_hashmap_put(&f->seq_ids, copy, f->nseqs);
			if (r < 0) {
				free(copy);
				goto out;
			}
			idx = f->nseqs++;
			f->keys[idx] = copy;
			f->seqs[idx] = (struct seq){.off = f->npool, .depth = depth};
			if (st->truncated)
				f->pool[f->npool++] = cut;
			for (uint32_t d = 0; d < st->depth; d++)
				f->pool[f->npool++] = name_of[st->frames[d]];
		}
		if (old) {
			f->seqs[idx].old_weight += st->weight;
			f->seqs[idx].old_samples += st->samples;
		} else {
			f->seqs[idx].weight += st->weight;
			f->seqs[idx].samples += st->samples;
		}
	}
	rc = 0;
out:
	free(key);
	free(name_of);
	return rc;
}

/* ---- Folded stacks --------------------------------------------------------------- */

struct top_line {
	char *text;
	uint64_t weight;
};

static int line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct top_line *)a)->text, ((const struct top_line *)b)->text);
}

/* A name as one folded frame: control characters as spaces, ';' (the separator) as ':'. */
static char *folded_name(const char *name)
{
	char *s = pmc_escape_text_dup(name);

	for (char *c = s; c && *c; c++)
		if (*c == ';')
			*c = ':';
	return s;
}

int pmc_profile_report_folded(FILE *out, const struct pmc_profile *p)
{
	struct fold f = {0};
	struct top_line *lines = NULL;
	char **esc = NULL;
	size_t nlines = 0;
	int rc;

	rc = fold_add(&f, p, false);
	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	esc = calloc(f.nnames + 1, sizeof(*esc));
	lines = calloc(f.nseqs + 1, sizeof(*lines));
	if (!esc || !lines)
		goto out;
	for (size_t i = 0; i < f.nnames; i++)
		if (!(esc[i] = folded_name(f.names[i])))
			goto out;
	for (size_t i = 0; i < f.nseqs; i++) {
		const struct seq *sq = &f.seqs[i];
		size_t len = 0, at = 0;
		char *t;

		if (!sq->weight)
			continue;
		for (uint32_t d = 0; d < sq->depth; d++)
			len += strlen(esc[f.pool[sq->off + d]]) + 1;
		t = malloc(len);
		if (!t)
			goto out;
		for (uint32_t d = 0; d < sq->depth; d++) {
			const char *n = esc[f.pool[sq->off + d]];
			size_t l = strlen(n);

			if (d)
				t[at++] = ';';
			memcpy(t + at, n, l);
			at += l;
		}
		t[at] = 0;
		lines[nlines++] = (struct top_line){.text = t, .weight = sq->weight};
	}
	qsort(lines, nlines, sizeof(*lines), line_cmp);
	/* Names that escaping made equal are one line. */
	for (size_t i = 0; i < nlines;) {
		uint64_t w = lines[i].weight;
		size_t j = i + 1;

		while (j < nlines && strcmp(lines[j].text, lines[i].text) == 0)
			w += lines[j++].weight;
		fprintf(out, "%s %" PRIu64 "\n", lines[i].text, w);
		i = j;
	}
	rc = finish(out);
out:
	for (size_t i = 0; lines && i < nlines; i++)
		free(lines[i].text);
	free(lines);
	for (size_t i = 0; esc && i < f.nnames; i++)
		free(esc[i]);
	free(esc);
	fold_free(&f);
	return rc;
}

/* ---- Flame graph stacks ---------------------------------------------------------- */

void pmc_flame_set_free(struct pmc_flame_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free((void *)s->frames);
	free(s->stacks);
	free(s);
}

static int flame_set_from(struct fold *f, struct pmc_flame_set **ret)
{
	struct pmc_flame_set *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* An empty profile is an empty set: the graph says it has nothing to draw. */
	s->stacks = calloc(f->nseqs ? f->nseqs : 1, sizeof(*s->stacks));
	s->frames = calloc(f->npool + 1, sizeof(*s->frames));
	if (!s->stacks || !s->frames) {
		pmc_flame_set_free(s);
		return -ENOMEM;
	}
	/* The names move from the fold to the set. */
	s->names = f->names;
	s->nnames = f->nnames;
	f->names = NULL;
	f->nnames = 0;
	for (size_t i = 0; i < f->npool; i++)
		s->frames[i] = s->names[f->pool[i]];
	for (size_t i = 0; i < f->nseqs; i++)
		s->stacks[i] = (struct pmc_flame_stack){.frames = s->frames + f->seqs[i].off,
							.depth = f->seqs[i].depth,
							.weight = f->seqs[i].weight,
							.old_weight = f->seqs[i].old_weight,
							.samples = f->seqs[i].samples,
							.old_samples = f->seqs[i].old_samples};
	s->n = f->nseqs;
	*ret = s;
	return 0;
}

int pmc_profile_flame_stacks(const struct pmc_profile *p, struct pmc_flame_set **ret)
{
	struct fold f = {0};
	int rc;

	if (!p || !ret)
		return -EINVAL;
	rc = fold_add(&f, p, false);
	if (rc == 0)
		rc = flame_set_from(&f, ret);
	fold_free(&f);
	return rc;
}

int pmc_profile_flame_diff_stacks(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
				  struct pmc_flame_set **ret)
{
	struct fold f = {0};
	int rc;

	if (!old_p || !new_p || !ret)
		return -EINVAL;
	rc = fold_add(&f, new_p, false);
	if (rc == 0)
		rc = fold_add(&f, old_p, true);
	if (rc == 0)
		rc = flame_set_from(&f, ret);
	fold_free(&f);
	return rc;
}

/* ---- The text report ------------------------------------------------------------- */

/* Writes s escaped, padded with spaces to width bytes. */
static void put_padded(FILE *out, const char *s, size_t width)
{
	char *e = pmc_escape_text_dup(s);
	size_t n;

	if (!e) {
		pmc_escape_text(out, s);
		return;
	}
	fputs(e, out);
	n = strlen(e);
	free(e);
	for (; n < width; n++)
		putc(' ', out);
}

/* ---- Lost samples ------------------------------------------------------------------ */

static const char *const tenth_names[PMC_PROFILE_TENTHS] = {
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "last",
};

/* The tenth that lost the most samples, if it lost at least half of them; else -1. */
static int lost_peak(const struct pmc_profile_info *in)
{
	int k = 0;

	for (int i = 1; i < PMC_PROFILE_TENTHS; i++)
		if (in->timeline.lost[i] > in->timeline.lost[k])
			k = i;
	return 2 * in->timeline.lost[k] >= in->lost ? k : -1;
}

/* Where in the recording the samples were lost, appended at buf + n. */
static size_t lost_when(const struct pmc_profile_info *in, bool brief, char *buf, size_t len,
			size_t n)
{
	const struct pmc_profile_timeline *t = &in->timeline;
	char from[PMC_FMT_MAX], to[PMC_FMT_MAX], share[PMC_FMT_MAX];
	int k;

	if (n >= len)
		return n;
	if (!t->span_ns)
		return n + (size_t)snprintf(buf + n, len - n,
					    brief ? ""
						  : "; when is not known (the profile keeps "
						    "no timeline)");
	if ((k = lost_peak(in)) < 0)
		return n + (size_t)snprintf(buf + n, len - n, ", spread over the recording");
	pmc_fmt_percent(pct(t->lost[k], t->lost[k] + t->samples[k]), false, share, sizeof(share));
	if (brief)
		return n + (size_t)snprintf(buf + n, len - n, ", most in its %s tenth (%s of it)",
					    tenth_names[k], share);
	pmc_fmt_short(((double)t->span_ns * k) / PMC_PROFILE_TENTHS, "ns", from, sizeof(from));
	pmc_fmt_short(((double)t->span_ns * (k + 1)) / PMC_PROFILE_TENTHS, "ns", to, sizeof(to));
	return n + (size_t)snprintf(buf + n, len - n,
				    "; %s%" PRIu64 " of them in the %s tenth of the recording "
				    "(%s%s%s%s), where %s of the samples were lost",
				    k == 0 ? "most at the start: " : "", t->lost[k], tenth_names[k],
				    k == 0 ? "its first " : "from ", k == 0 ? "" : from,
				    k == 0 ? "" : " to ", to, share);
}

size_t pmc_profile_lost_text(const struct pmc_profile *p, bool brief, char *buf, size_t len)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);
	char a[PMC_FMT_MAX], b[PMC_FMT_MAX];
	size_t n;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (in->kind != PMC_PROFILE_SAMPLED || !in->lost)
		return 0;
	pmc_fmt_grouped((double)in->lost, a, sizeof(a));
	/* A share of the samples kept, s, is (s K + x) / (K + L) with the L lost ones, x of
	 * them the function's (0 <= x <= L): off by at most L / (K + L). */
	pmc_fmt_percent(pct(in->lost, in->samples + in->lost), false, b, sizeof(b));
	n = (size_t)snprintf(buf, len, "%s samples lost (%s of those taken)", a, b);
	n = lost_when(in, brief, buf, len, n);
	if (n < len)
		n += (size_t)snprintf(
		    buf + n, len - n,
		    brief ? ": shares may be off by up to %.*f points"
			  : ": the kernel dropped them while its ring buffer was "
			    "full, so every share may be off by up to %.*f points "
			    "(the lost samples may all have been of one function); "
			    "record with a lower frequency",
		    pmc_fmt_percent_decimals(pct(in->lost, in->samples + in->lost)),
		    pct(in->lost, in->samples + in->lost));
	return n < len ? n : len - 1;
}

/* The share of each tenth's samples that was lost, on one line. */
static void lost_tenths(FILE *out, const struct pmc_profile_info *in)
{
	const struct pmc_profile_timeline *t = &in->timeline;
	char a[PMC_FMT_MAX];

	pmc_fmt_short((double)t->span_ns / PMC_PROFILE_TENTHS, "ns", a, sizeof(a));
	fprintf(out, "Lost per tenth of the recording (%s each):", a);
	for (int i = 0; i < PMC_PROFILE_TENTHS; i++) {
		pmc_fmt_percent(pct(t->lost[i], t->lost[i] + t->samples[i]), false, a, sizeof(a));
		fprintf(out, " %s", a);
	}
	putc('\n', out);
}

void pmc_profile_report_header(FILE *out, const struct pmc_profile *p)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);
	char a[PMC_FMT_MAX + 24];

	fputs("Profile", out);
	if (in->name) {
		fputs(" of ", out);
		pmc_escape_text(out, in->name);
	}
	fputs(": ", out);
	pmc_escape_text(out, in->event);
	fputs(" (", out);
	pmc_escape_text(out, in->unit);
	fputs("), ", out);
	if (in->kind == PMC_PROFILE_EXACT) {
		fputs("exact (simulated counts)\n", out);
	} else {
		if (pmc_profile_off_cpu(p)) {
			/* Every switch-out is a sample: the waits are measured, not estimated. */
			fputs("measured (every wait off CPU, no sampling error)\n", out);
		} else {
			fputs("sampled", out);
			if (in->freq)
				/* The frequency asked for: the kernel may sample less often
				 * (perf_event_max_sample_rate); the samples say what it did. */
				fprintf(out, " (%" PRIu64 " Hz asked)", in->freq);
			fputs(" (estimates with sampling error)\n", out);
		}
		if (in->call_graph == PMC_CALL_GRAPH_DWARF)
			fprintf(out,
				"Call graph: dwarf (%" PRIu32 " bytes of user stack per sample, "
				"unwound with each object's CFI)\n",
				in->stack_size);
		else if (in->call_graph == PMC_CALL_GRAPH_FP)
			fputs("Call graph: fp (the kernel's walk of frame pointers)\n", out);
		else if (in->call_graph == PMC_CALL_GRAPH_NONE)
			fputs("Call graph: none (sampled functions only)\n", out);
		pmc_fmt_grouped((double)in->samples, a, sizeof(a));
		if (in->lost_unknown)
			fprintf(out, "Samples: %s, lost: not known (the input does not say)\n", a);
		else
			fprintf(out, "Samples: %s, lost: %" PRIu64 "\n", a, in->lost);
		if (in->partial)
			fputs("Partial: the recording was stopped before its end (Ctrl-C or "
			      "SIGTERM); the profile covers the run until then\n",
			      out);
		if (in->lost) {
			char lost[1024];

			pmc_profile_lost_text(p, false, lost, sizeof(lost));
			fprintf(out, "WARNING: %s\n", lost);
			if (in->timeline.span_ns)
				lost_tenths(out, in);
		}
		if (in->throttled)
			fprintf(out,
				"WARNING: the kernel throttled sampling %" PRIu64
				" time%s (samples "
				"took more CPU time than perf_cpu_time_max_percent allows), so "
				"parts of the run have no samples; record with a lower frequency\n",
				in->throttled, in->throttled == 1 ? "" : "s");
	}
	pmc_fmt_grouped((double)in->unresolved, a, sizeof(a));
	fprintf(out, "Unresolved frames: %s%s\n", a,
		in->unresolved ? " (shown as OBJECT+0xOFFSET)" : "");
	if (pmc_profile_truncated(p)) {
		fputs("Truncated: ", out);
		pmc_profile_report_truncated(out, p);
		putc('\n', out);
	}
}

/* The table of the top functions of fns (show of them, show >= 1), shares of total. A
 * weight is in the profile's unit: time as time ("250us"), a count of anything else with
 * an SI suffix and its unit ("1.201M instructions"), never in exponent notation. */
static void functions_table(FILE *out, const struct pmc_profile *p,
			    const struct pmc_profile_fn *fns, size_t n, size_t show)
{
	const char *unit = pmc_profile_info(p)->unit;
	uint64_t total = pmc_profile_total(p);
	char a[PMC_FMT_MAX + 24], b[PMC_FMT_MAX + 24];
	size_t width = 8;
	int self_w = 10;

	for (size_t i = 0; i < show; i++) {
		size_t l = strlen(fns[i].name);

		if (l > width)
			width = l > 60 ? 60 : l;
	}
	/* The self column as wide as its widest value ("7170 instructions"). */
	for (size_t i = 0; i < show; i++) {
		char s[PMC_FMT_MAX + 24];
		int l;

		pmc_fmt_weight((double)fns[i].self, unit, false, s, sizeof(s));
		l = (int)strlen(s);
		if (l > self_w)
			self_w = l;
	}
	fprintf(out, "%7s %7s %*s  ", "self%", "total%", self_w, "self");
	put_padded(out, "function", width);
	fputs("  object\n", out);
	for (size_t i = 0; i < show; i++) {
		char s[PMC_FMT_MAX + 24];

		pmc_fmt_percent(pct(fns[i].self, total), false, a, sizeof(a));
		pmc_fmt_percent(pct(fns[i].total, total), false, b, sizeof(b));
		pmc_fmt_weight((double)fns[i].self, unit, false, s, sizeof(s));
		fprintf(out, "%7s %7s %*s  ", a, b, self_w, s);
		put_padded(out, fns[i].name, width);
		fputs("  ", out);
		pmc_escape_text(out, fns[i].object);
		putc('\n', out);
	}
	if (show < n)
		fprintf(out, "(%zu more function%s; a larger --top shows them)\n", n - show,
			n - show == 1 ? "" : "s");
}

int pmc_profile_report_functions(FILE *out, const struct pmc_profile *p, size_t top)
{
	struct pmc_profile_fn *fns = NULL;
	size_t n = 0, show;
	int rc = pmc_profile_functions(p, &fns, &n);

	if (rc < 0)
		return rc;
	show = top && top < n ? top : n;
	if (show && pmc_profile_total(p))
		functions_table(out, p, fns, n, show);
	pmc_profile_functions_free(fns, n);
	return finish(out);
}

/* By total weight, then self, then name (perf report --children). */
static int fn_total_cmp(const void *a, const void *b)
{
	const struct pmc_profile_fn *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

int pmc_profile_report_text_by(FILE *out, const struct pmc_profile *p, size_t top, bool by_total)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);
	uint64_t total = pmc_profile_total(p);
	struct pmc_profile_fn *fns = NULL;
	char a[PMC_FMT_MAX + 24];
	size_t n = 0, show;
	int rc;

	rc = pmc_profile_functions(p, &fns, &n);
	if (rc < 0)
		return rc;
	if (by_total && n)
		qsort(fns, n, sizeof(*fns), fn_total_cmp);
	pmc_profile_report_header(out, p);
	pmc_fmt_weight(total ? (double)total : NAN, in->unit, false, a, sizeof(a));
	fprintf(out, "Total: %s in %zu stacks, %zu functions\n", total ? a : "0",
		pmc_profile_stack_count(p), n);
	show = top && top < n ? top : n;
	if (!show || !total) {
		fputs("\nNo samples: nothing to show.\n", out);
	} else {
		putc('\n', out);
		functions_table(out, p, fns, n, show);
	}
	pmc_profile_functions_free(fns, n);
	return finish(out);
}

/* ---- Diff and attribution -------------------------------------------------------- */

int pmc_profile_report_truncated(FILE *out, const struct pmc_profile *p)
{
	uint64_t cut = pmc_profile_truncated(p);
	char a[PMC_FMT_MAX];

	if (!cut)
		return 0;
	pmc_fmt_percent(pct(cut, pmc_profile_total(p)), false, a, sizeof(a));
	/* A sampled chain is cut where a frame-pointer walk ends short of an entry point
	 * (names.h: code without frame pointers broke it) or at the kernel's depth limit,
	 * a DWARF unwind by the end of the stack's copy or code without CFI; callgrind's at
	 * its --separate-callers or where it lost track of the stack. */
	fprintf(out,
		"%s of the weight is in cut call chains (%s): their callers are missing, so "
		"callers' total%% is too low; self%% is whole; shown "
		"under " PMC_PROFILE_TRUNCATED_FRAME,
		a,
		pmc_profile_info(p)->kind == PMC_PROFILE_EXACT
		    ? "deeper than callgrind's --separate-callers, or a lost stack"
		: pmc_profile_info(p)->call_graph == PMC_CALL_GRAPH_DWARF
		    ? "the stack copy ended, or code without CFI, or deeper than "
		      "perf_event_max_stack"
		    : "the walk of frame pointers ended short of main or a thread's start: "
		      "code without frame pointers, or deeper than perf_event_max_stack");
	return 1;
}
