/* "pmcbench-profile/1" files written (docs/profile.md, "The profile file"): as a stream,
 * a profile may hold millions of stacks, so no JSON tree on the way out; atomically. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/grow.h"
#include "formats/json_out.h"
#include "formats/result_json.h"
#include "profile/profile.h"
#include "profile/profile_json_priv.h"
#include "profile/profile_lines.h"

static void put_u64(FILE *f, uint64_t v)
{
	char buf[24];
	size_t n = sizeof(buf);

	do {
		buf[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite(buf + n, 1, sizeof(buf) - n, f);
}

/* s as a JSON string, through the one writer of JSON text (json_out.h). Write errors
 * stay in the stream's error flag, which the commit checks; once memory ran out, the rest
 * is skipped and *rc is -ENOMEM. */
static void put_str(FILE *f, const char *s, int *rc)
{
	if (*rc == 0 && pmc_json_put_string(f, s) == -ENOMEM)
		*rc = -ENOMEM;
}

static void put_key_u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",\n  \"%s\": ", key);
	put_u64(f, v);
}

/* "call_graph" by enum pmc_profile_call_graph; unknown is left out. */
/* "lines" (docs/profile.md, "Source lines"), when the profile keeps them: an empty
 * array says none of its samples ended in a file, absence that they were not kept. */
static void write_lines(const struct pmc_profile *p, FILE *f, int *rc)
{
	const struct pmc_profile_lines *t = pmc_profile_lines(p);
	size_t n = pmc_profile_lines_count(t);

	if (!t)
		return;
	fputs(",\n  \"lines\": [", f);
	for (size_t i = 0; i < n; i++) {
		const struct pmc_profile_line *l = pmc_profile_lines_get(t, i);

		fputs(i ? ",\n    {\"frame\": " : "\n    {\"frame\": ", f);
		put_u64(f, l->frame);
		fputs(", \"address\": ", f);
		put_u64(f, l->address);
		fputs(", \"weight\": ", f);
		put_u64(f, l->weight);
		fputs(", \"samples\": ", f);
		put_u64(f, l->samples);
		if (l->file) {
			fputs(", \"file\": ", f);
			put_str(f, l->file, rc);
			fputs(", \"line\": ", f);
			put_u64(f, l->line);
		}
		if (l->inlined) {
			fputs(", \"inlined\": ", f);
			put_str(f, l->inlined, rc);
		}
		if (l->call_file) {
			fputs(", \"call_file\": ", f);
			put_str(f, l->call_file, rc);
			fputs(", \"call_line\": ", f);
			put_u64(f, l->call_line);
		}
		putc('}', f);
	}
	fputs(n ? "\n  ]" : "]", f);
}

/* When the samples were taken and lost, per tenth of the recording. */
static void write_timeline(FILE *f, const struct pmc_profile_timeline *t)
{
	fputs(",\n  \"timeline\": {\"span_ns\": ", f);
	put_u64(f, t->span_ns);
	fputs(", \"samples\": [", f);
	for (size_t i = 0; i < PMC_PROFILE_TENTHS; i++) {
		fputs(i ? ", " : "", f);
		put_u64(f, t->samples[i]);
	}
	fputs("], \"lost\": [", f);
	for (size_t i = 0; i < PMC_PROFILE_TENTHS; i++) {
		fputs(i ? ", " : "", f);
		put_u64(f, t->lost[i]);
	}
	fputs("]}", f);
}

/* Returns 0, or -ENOMEM with the text incomplete. */
static int write_profile(const struct pmc_profile *p, FILE *f)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);
	size_t nf = pmc_profile_frame_count(p), ns = pmc_profile_stack_count(p);
	int rc = 0;

	fputs("{\n  \"schema\": \"" PMC_PROFILE_SCHEMA "\",\n  \"kind\": ", f);
	fputs(in->kind == PMC_PROFILE_EXACT ? "\"exact\"" : "\"sampled\"", f);
	fputs(",\n  \"event\": ", f);
	put_str(f, in->event, &rc);
	fputs(",\n  \"unit\": ", f);
	put_str(f, in->unit, &rc);
	if (in->name) {
		fputs(",\n  \"name\": ", f);
		put_str(f, in->name, &rc);
	}
	/* An exact profile has no sampling: no frequency, samples or lost samples. */
	if (in->kind == PMC_PROFILE_SAMPLED) {
		put_key_u64(f, "freq", in->freq);
		put_key_u64(f, "samples", in->samples);
		if (in->lost_unknown)
			fputs(",\n  \"lost\": null", f);
		else
			put_key_u64(f, "lost", in->lost);
		if (in->throttled)
			put_key_u64(f, "throttled", in->throttled);
		if (in->partial)
			fputs(",\n  \"partial\": true", f);
		if (in->call_graph != PMC_CALL_GRAPH_UNKNOWN) {
			fputs(",\n  \"call_graph\": ", f);
			put_str(f, call_graph_names[in->call_graph], &rc);
		}
		if (in->call_graph == PMC_CALL_GRAPH_DWARF)
			put_key_u64(f, "stack_size", in->stack_size);
		if (in->timeline.span_ns)
			write_timeline(f, &in->timeline);
	}
	put_key_u64(f, "unresolved", in->unresolved);
	put_key_u64(f, "total", pmc_profile_total(p));
	fputs(",\n  \"frames\": [", f);
	for (uint32_t i = 0; i < nf; i++) {
		const struct pmc_profile_frame *fr = pmc_profile_frame(p, i);

		fputs(i ? ",\n    {" : "\n    {", f);
		if (fr->symbol) {
			fputs("\"symbol\": ", f);
			put_str(f, fr->symbol, &rc);
			fputs(", ", f);
		}
		fputs("\"object\": ", f);
		put_str(f, fr->object, &rc);
		if (!fr->symbol) {
			fputs(", \"offset\": ", f);
			put_u64(f, fr->offset);
		}
		putc('}', f);
	}
	fputs(nf ? "\n  ]" : "]", f);
	/* The tasks only where they were kept (docs/profile.md, "Tasks"). */
	for (uint32_t i = 0; i < pmc_profile_task_count(p); i++) {
		const struct pmc_profile_task *t = pmc_profile_task(p, i);

		fputs(i ? ",\n    {\"pid\": " : ",\n  \"tasks\": [\n    {\"pid\": ", f);
		put_u64(f, t->pid);
		fputs(", \"tid\": ", f);
		put_u64(f, t->tid);
		if (t->comm) {
			fputs(", \"comm\": ", f);
			put_str(f, t->comm, &rc);
		}
		putc('}', f);
	}
	fputs(pmc_profile_task_count(p) ? "\n  ],\n  \"stacks\": [" : ",\n  \"stacks\": [", f);
	for (size_t i = 0; i < ns; i++) {
		const struct pmc_profile_stack *s = pmc_profile_stack(p, i);

		fputs(i ? ",\n    {\"frames\": [" : "\n    {\"frames\": [", f);
		for (uint32_t d = 0; d < s->depth; d++) {
			if (d)
				putc(',', f);
			put_u64(f, s->frames[d]);
		}
		fputs("], \"weight\": ", f);
		put_u64(f, s->weight);
		if (in->kind == PMC_PROFILE_SAMPLED) {
			fputs(", \"samples\": ", f);
			put_u64(f, s->samples);
		}
		if (s->truncated)
			fputs(", \"truncated\": true", f);
		if (s->task != PMC_PROFILE_NO_TASK) {
			fputs(", \"task\": ", f);
			put_u64(f, s->task);
		}
		putc('}', f);
	}
	fputs(ns ? "\n  ]" : "]", f);
	write_lines(p, f, &rc);
	fputs("\n}\n", f);
	return rc;
}

/* jansson reads integers as signed 64-bit (json_int_t): a larger value could not be read
 * back, so it is refused here rather than written. */
static int check_range(const struct pmc_profile *p, const char *path, char *err, size_t errlen)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);
	const uint64_t max = INT64_MAX;

	if (pmc_profile_total(p) > max || in->samples > max || in->lost > max ||
	    in->unresolved > max || in->freq > max) {
		pmc_err_set(err, errlen,
			    "cannot write %s: a count of the profile exceeds 2^63-1, which JSON "
			    "readers cannot read back; record a shorter run or a longer period",
			    path);
		return -EOVERFLOW;
	}
	for (size_t i = 0; i < pmc_profile_stack_count(p); i++)
		if (pmc_profile_stack(p, i)->samples > max) {
			pmc_err_set(err, errlen,
				    "cannot write %s: stacks[%zu].samples exceeds 2^63-1", path, i);
			return -EOVERFLOW;
		}
	for (size_t i = 0; i < pmc_profile_lines_count(pmc_profile_lines(p)); i++) {
		const struct pmc_profile_line *l = pmc_profile_lines_get(pmc_profile_lines(p), i);

		if (l->address > max || l->weight > max || l->samples > max) {
			pmc_err_set(err, errlen,
				    "cannot write %s: lines[%zu] holds a value beyond 2^63-1", path,
				    i);
			return -EOVERFLOW;
		}
	}
	/* Offsets need no check: the model refuses those beyond PMC_PROFILE_OFFSET_MAX. */
	return 0;
}

int pmc_profile_save(const struct pmc_profile *p, const char *path, char *err, size_t errlen)
{
	struct pmc_atomic_file *af;
	FILE *f;
	int rc;

	if (!p || !path)
		return -EINVAL;
	rc = check_range(p, path, err, errlen);
	if (rc < 0)
		goto out;
	rc = pmc_atomic_file_open(path, &af, err, errlen);
	if (rc < 0)
		goto out;
	f = pmc_atomic_file_stream(af);
	rc = write_profile(p, f);
	if (rc == -EIO && pmc_atomic_file_write_error(af))
		rc = pmc_atomic_file_write_error(af);
	if (rc < 0) {
		pmc_atomic_file_abort(af);
		pmc_err_set(err, errlen, "cannot write %s: %s; the previous file is unchanged",
			    path, strerror(-rc));
		goto out;
	}
	/* The commit checks the stream's error flag: a failed write keeps the old file. */
	rc = pmc_atomic_file_commit(af, err, errlen);
out:
	if (rc < 0)
		pmc_err_escape(err, errlen);
	return rc;
}
