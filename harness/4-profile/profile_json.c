/* "pmcbench-profile/1" files read (docs/profile.md, "The profile file"; written by
 * profile_json_write.c): through jansson, checked field by field, each error naming its
 * JSON path. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/grow.h"
#include "base/utf8.h"
#include "formats/json_out.h"
#include "formats/result_json.h"
#include "profile/profile.h"
#include "profile/profile_json_priv.h"
#include "profile/profile_lines.h"

#define SCHEMA_PREFIX "pmcbench-profile/"

struct loader {
	const char *file;
	char *err;
	size_t errlen;
};

/* One line: FILE: JSON-PATH: what is wrong; what to do. */
__attribute__((format(printf, 3, 4))) static int bad(struct loader *ld, const char *where,
						     const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pmc_err_set(ld->err, ld->errlen, "%s: %s: %s", ld->file, where, msg);
	return -EINVAL;
}

#define DAMAGED "the file was edited or damaged: record the profile again"

/* A non-negative integer at where; absent is an error unless optional (then 0). */
static int get_u64(struct loader *ld, const json_t *v, const char *where, bool optional,
		   uint64_t *ret)
{
	if (!v) {
		if (optional) {
			*ret = 0;
			return 0;
		}
		return bad(ld, where, "missing; " DAMAGED);
	}
	if (json_is_real(v))
		return bad(ld, where, "expected a non-negative integer, got %g; " DAMAGED,
			   json_real_value(v));
	if (!json_is_integer(v))
		return bad(ld, where, "expected a non-negative integer, got %s; " DAMAGED,
			   pmc_json_kind(v));
	if (json_integer_value(v) < 0)
		return bad(ld, where,
			   "expected a non-negative integer, got %" JSON_INTEGER_FORMAT
			   "; " DAMAGED,
			   json_integer_value(v));
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_str(struct loader *ld, const json_t *v, const char *where, bool optional,
		   const char **ret)
{
	if (!v || (optional && json_is_null(v))) {
		if (optional) {
			*ret = NULL;
			return 0;
		}
		return bad(ld, where, "missing; " DAMAGED);
	}
	if (!json_is_string(v) || !json_string_length(v))
		return bad(ld, where, "expected a non-empty string, got %s; " DAMAGED,
			   json_is_string(v) ? "\"\"" : pmc_json_kind(v));
	if (strlen(json_string_value(v)) != json_string_length(v))
		return bad(ld, where, "holds a NUL character; " DAMAGED);
	*ret = json_string_value(v);
	return 0;
}

static int check_schema(struct loader *ld, const json_t *root)
{
	const json_t *v = json_object_get(root, "schema");
	const char *s;

	if (!v || !json_is_string(v))
		return bad(ld, "schema",
			   "%s; not a pmcbench profile (this build reads \"schema\": \"%s\")",
			   v ? "not a string" : "missing", PMC_PROFILE_SCHEMA);
	s = json_string_value(v);
	if (strcmp(s, PMC_PROFILE_SCHEMA) == 0)
		return 0;
	if (strncmp(s, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)) == 0)
		return bad(ld, "schema",
			   "\"%s\" is a version this build does not read (it reads %s); use the "
			   "pmcbench that wrote the file, or a newer one",
			   s, PMC_PROFILE_SCHEMA);
	return bad(ld, "schema",
		   "\"%s\" is not a profile; give a file with \"schema\": \"%s\" (a profile "
		   "pmcbench saved)",
		   s, PMC_PROFILE_SCHEMA);
}

/* How the callers were found: absent from exact profiles and older files. */
static int read_call_graph(struct loader *ld, const json_t *root, struct pmc_profile_info *in)
{
	const char *cg;
	uint64_t size = 0;
	int rc;

	if ((rc = get_str(ld, json_object_get(root, "call_graph"), "call_graph", true, &cg)) < 0)
		return rc;
	if (!cg)
		return 0;
	for (size_t i = 1; i < sizeof(call_graph_names) / sizeof(call_graph_names[0]); i++)
		if (strcmp(cg, call_graph_names[i]) == 0)
			in->call_graph = (enum pmc_profile_call_graph)i;
	if (in->call_graph == PMC_CALL_GRAPH_UNKNOWN)
		return bad(ld, "call_graph", "expected \"fp\", \"dwarf\" or \"none\"; " DAMAGED);
	if (in->call_graph == PMC_CALL_GRAPH_DWARF &&
	    (rc = get_u64(ld, json_object_get(root, "stack_size"), "stack_size", false, &size)) < 0)
		return rc;
	if (size > UINT32_MAX)
		return bad(ld, "stack_size", "%llu is beyond any stack copy; " DAMAGED,
			   (unsigned long long)size);
	in->stack_size = (uint32_t)size;
	return 0;
}

/* Whether the recording was stopped before its end: absent means whole. */
static int read_partial(struct loader *ld, const json_t *root, struct pmc_profile_info *in)
{
	const json_t *v = json_object_get(root, "partial");

	if (v && !json_is_boolean(v))
		return bad(ld, "partial", "expected true or false, got %s; " DAMAGED,
			   pmc_json_kind(v));
	in->partial = json_is_true(v);
	return 0;
}

/* The tenths of one timeline's counts, which must add up to the profile's. */
static int read_tenths(struct loader *ld, const json_t *v, const char *where, uint64_t total,
		       uint64_t *ret)
{
	char at[64];
	uint64_t sum = 0;
	int rc;

	if (!json_is_array(v) || json_array_size(v) != PMC_PROFILE_TENTHS)
		return bad(ld, where, "expected an array of %d counts; " DAMAGED,
			   PMC_PROFILE_TENTHS);
	for (size_t i = 0; i < PMC_PROFILE_TENTHS; i++) {
		snprintf(at, sizeof(at), "%s[%zu]", where, i);
		if ((rc = get_u64(ld, json_array_get(v, i), at, false, &ret[i])) < 0)
			return rc;
		if (ret[i] > total - sum)
			return bad(ld, at, "adds up to more than the profile's %llu; " DAMAGED,
				   (unsigned long long)total);
		sum += ret[i];
	}
	if (sum != total)
		return bad(ld, where, "adds up to %llu, not the profile's %llu; " DAMAGED,
			   (unsigned long long)sum, (unsigned long long)total);
	return 0;
}

/* The lost samples: a count, or null where the input did not say (an imported profile:
 * not known is never 0). */
static int get_lost(struct loader *ld, const json_t *v, bool sampled, struct pmc_profile_info *in)
{
	if (sampled && json_is_null(v)) {
		in->lost = 0;
		in->lost_unknown = true;
		return 0;
	}
	return get_u64(ld, v, "lost", !sampled, &in->lost);
}

/* When the samples were taken and lost: absent from imported and older profiles. */
static int read_timeline(struct loader *ld, const json_t *root, struct pmc_profile_info *in)
{
	const json_t *t = json_object_get(root, "timeline");
	int rc;

	if (!t)
		return 0;
	if (!json_is_object(t))
		return bad(ld, "timeline", "expected an object, got %s; " DAMAGED,
			   pmc_json_kind(t));
	if ((rc = get_u64(ld, json_object_get(t, "span_ns"), "timeline.span_ns", false,
			  &in->timeline.span_ns)) < 0 ||
	    (rc = read_tenths(ld, json_object_get(t, "samples"), "timeline.samples", in->samples,
			      in->timeline.samples)) < 0 ||
	    (rc = read_tenths(ld, json_object_get(t, "lost"), "timeline.lost", in->lost,
			      in->timeline.lost)) < 0)
		return rc;
	if (!in->timeline.span_ns)
		return bad(ld, "timeline.span_ns", "0 is no recording's span; " DAMAGED);
	return 0;
}

static int read_info(struct loader *ld, const json_t *root, struct pmc_profile_info *in)
{
	const json_t *kind = json_object_get(root, "kind");
	bool sampled;
	int rc;

	if (!json_is_string(kind) || (strcmp(json_string_value(kind), "sampled") != 0 &&
				      strcmp(json_string_value(kind), "exact") != 0))
		return bad(ld, "kind", "expected \"sampled\" or \"exact\"; " DAMAGED);
	sampled = strcmp(json_string_value(kind), "sampled") == 0;
	in->kind = sampled ? PMC_PROFILE_SAMPLED : PMC_PROFILE_EXACT;
	if ((rc = get_str(ld, json_object_get(root, "event"), "event", false, &in->event)) < 0 ||
	    (rc = get_str(ld, json_object_get(root, "unit"), "unit", false, &in->unit)) < 0 ||
	    (rc = get_str(ld, json_object_get(root, "name"), "name", true, &in->name)) < 0)
		return rc;
	/* The unit follows every figure of a report: a word, never a terminal control. */
	if (pmc_utf8_has_control(in->unit))
		return bad(ld, "unit", "a unit holds no control characters; " DAMAGED);
	/* A sampled profile says how many samples it lost: missing is damage, not 0. */
	if ((rc = get_u64(ld, json_object_get(root, "freq"), "freq", !sampled, &in->freq)) < 0 ||
	    (rc = get_u64(ld, json_object_get(root, "samples"), "samples", !sampled,
			  &in->samples)) < 0 ||
	    (rc = get_lost(ld, json_object_get(root, "lost"), sampled, in)) < 0 ||
	    (rc = get_u64(ld, json_object_get(root, "throttled"), "throttled", true,
			  &in->throttled)) < 0 ||
	    (rc = get_u64(ld, json_object_get(root, "unresolved"), "unresolved", false,
			  &in->unresolved)) < 0)
		return rc;
	if ((rc = read_partial(ld, root, in)) < 0 ||
	    (sampled && (rc = read_timeline(ld, root, in)) < 0))
		return rc;
	return read_call_graph(ld, root, in);
}

static int read_frames(struct loader *ld, const json_t *frames, struct pmc_profile *p,
		       uint32_t **ret_map)
{
	size_t n = json_array_size(frames);
	uint32_t *map;
	char where[64];
	int rc = 0;

	if (!json_is_array(frames))
		return bad(ld, "frames", "%s; expected an array of frames; " DAMAGED,
			   frames ? "not an array" : "missing");
	if (n > UINT32_MAX)
		return bad(ld, "frames", "more than 2^32-1 frames; " DAMAGED);
	map = malloc((n + 1) * sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const json_t *fr = json_array_get(frames, i);
		const char *symbol, *object;
		uint64_t offset;

		if (!json_is_object(fr)) {
			snprintf(where, sizeof(where), "frames[%zu]", i);
			rc = bad(ld, where, "expected an object, got %s; " DAMAGED,
				 pmc_json_kind(fr));
			break;
		}
		snprintf(where, sizeof(where), "frames[%zu].symbol", i);
		if ((rc = get_str(ld, json_object_get(fr, "symbol"), where, true, &symbol)) < 0)
			break;
		snprintf(where, sizeof(where), "frames[%zu].object", i);
		if ((rc = get_str(ld, json_object_get(fr, "object"), where, false, &object)) < 0)
			break;
		snprintf(where, sizeof(where), "frames[%zu].offset", i);
		if ((rc = get_u64(ld, json_object_get(fr, "offset"), where, true, &offset)) < 0)
			break;
		/* The ids of a file pmcbench wrote are its frames' indexes; a frame given
		 * twice becomes one. */
		rc = pmc_profile_frame_id(p, symbol, object, offset, &map[i]);
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		free(map);
		return rc;
	}
	*ret_map = map;
	return 0;
}

/* A process or thread id (the kernel's are 32-bit). */
static int get_id(struct loader *ld, const json_t *v, const char *where, uint32_t *ret)
{
	uint64_t id;
	int rc = get_u64(ld, v, where, false, &id);

	if (rc < 0)
		return rc;
	if (id > UINT32_MAX)
		return bad(ld, where, "%" PRIu64 " is beyond any process or thread id; " DAMAGED,
			   id);
	*ret = (uint32_t)id;
	return 0;
}

/* The tasks the stacks came from: absent from exact profiles and older files. */
static int read_tasks(struct loader *ld, const json_t *tasks, struct pmc_profile *p,
		      uint32_t **ret_map)
{
	size_t n = json_array_size(tasks);
	uint32_t *map;
	char where[64];
	int rc = 0;

	if (tasks && !json_is_array(tasks))
		return bad(ld, "tasks", "not an array; expected an array of tasks; " DAMAGED);
	if (n > UINT32_MAX - 1)
		return bad(ld, "tasks", "more than 2^32-2 tasks; " DAMAGED);
	map = malloc((n + 1) * sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const json_t *t = json_array_get(tasks, i);
		uint32_t pid = 0, tid = 0;
		const char *comm;

		snprintf(where, sizeof(where), "tasks[%zu]", i);
		if (!json_is_object(t)) {
			rc = bad(ld, where, "expected an object, got %s; " DAMAGED,
				 pmc_json_kind(t));
			break;
		}
		snprintf(where, sizeof(where), "tasks[%zu].pid", i);
		if ((rc = get_id(ld, json_object_get(t, "pid"), where, &pid)) < 0)
			break;
		snprintf(where, sizeof(where), "tasks[%zu].tid", i);
		if ((rc = get_id(ld, json_object_get(t, "tid"), where, &tid)) < 0)
			break;
		snprintf(where, sizeof(where), "tasks[%zu].comm", i);
		if ((rc = get_str(ld, json_object_get(t, "comm"), where, true, &comm)) < 0)
			break;
		rc = pmc_profile_task_id(p, pid, tid, comm, &map[i]);
	}
	if (rc < 0) {
		free(map);
		return rc;
	}
	*ret_map = map;
	return 0;
}

/* A stack's task: absent means not kept; else an index into the file's tasks. */
static int read_stack_task(struct loader *ld, const json_t *st, size_t i, size_t ntasks,
			   const uint32_t *task_map, uint32_t *ret)
{
	const json_t *v = json_object_get(st, "task");
	char where[64];
	uint64_t t;
	int rc;

	*ret = PMC_PROFILE_NO_TASK;
	if (!v)
		return 0;
	snprintf(where, sizeof(where), "stacks[%zu].task", i);
	if ((rc = get_u64(ld, v, where, false, &t)) < 0)
		return rc;
	if (t >= ntasks)
		return bad(ld, where,
			   "task %" PRIu64 " is out of range (the file has %zu tasks%s); " DAMAGED,
			   t, ntasks, ntasks ? "" : ": no \"tasks\" table");
	*ret = task_map[t];
	return 0;
}

static int read_stacks(struct loader *ld, const json_t *stacks, size_t nframes, const uint32_t *map,
		       size_t ntasks, const uint32_t *task_map, bool sampled, struct pmc_profile *p)
{
	size_t n = json_array_size(stacks), cap = 0;
	uint32_t *ids = NULL;
	char where[96];
	int rc = 0;

	if (!json_is_array(stacks))
		return bad(ld, "stacks", "%s; expected an array of stacks; " DAMAGED,
			   stacks ? "not an array" : "missing");
	for (size_t i = 0; i < n && rc == 0; i++) {
		const json_t *st = json_array_get(stacks, i), *fr, *tr, *v;
		uint64_t weight, samples;
		uint32_t task;
		size_t depth;

		if (!json_is_object(st)) {
			snprintf(where, sizeof(where), "stacks[%zu]", i);
			rc = bad(ld, where, "expected an object, got %s; " DAMAGED,
				 pmc_json_kind(st));
			break;
		}
		fr = json_object_get(st, "frames");
		depth = json_array_size(fr);
		if (!json_is_array(fr) || depth == 0 || depth > UINT32_MAX) {
			snprintf(where, sizeof(where), "stacks[%zu].frames", i);
			rc = bad(ld, where, "expected a non-empty array of frame ids; " DAMAGED);
			break;
		}
		if (pmc_grow_to(&ids, &cap, depth, sizeof(*ids)) < 0) {
			rc = -ENOMEM;
			break;
		}
		/* The JSON path of a field is written only when the field is bad: a profile
		 * has millions of these. */
		for (size_t d = 0; d < depth; d++) {
			const json_t *e = json_array_get(fr, d);
			json_int_t id = json_integer_value(e);

			if (!json_is_integer(e) || id < 0) {
				snprintf(where, sizeof(where), "stacks[%zu].frames[%zu]", i, d);
				rc = get_u64(ld, e, where, false, &weight);
				break;
			}
			if ((uint64_t)id >= nframes) {
				snprintf(where, sizeof(where), "stacks[%zu].frames[%zu]", i, d);
				rc = bad(ld, where,
					 "frame id %" JSON_INTEGER_FORMAT
					 " is out of range (the file "
					 "has %zu frames, ids 0 to %zu); " DAMAGED,
					 id, nframes, nframes ? nframes - 1 : 0);
				break;
			}
			ids[d] = map[id];
		}
		if (rc < 0)
			break;
		v = json_object_get(st, "weight");
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(where, sizeof(where), "stacks[%zu].weight", i);
			rc = get_u64(ld, v, where, false, &weight);
			if (rc < 0)
				break;
		}
		weight = (uint64_t)json_integer_value(v);
		v = json_object_get(st, "samples");
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(where, sizeof(where), "stacks[%zu].samples", i);
			rc = get_u64(ld, v, where, !sampled, &samples);
			if (rc < 0)
				break;
		}
		samples = v ? (uint64_t)json_integer_value(v) : 0;
		tr = json_object_get(st, "truncated");
		if (tr && !json_is_boolean(tr)) {
			snprintf(where, sizeof(where), "stacks[%zu].truncated", i);
			rc = bad(ld, where, "expected true or false, got %s; " DAMAGED,
				 pmc_json_kind(tr));
			break;
		}
		if ((rc = read_stack_task(ld, st, i, ntasks, task_map, &task)) < 0)
			break;
		rc = pmc_profile_add_task(p, ids, (uint32_t)depth, task, weight, samples,
					  json_is_true(tr));
		if (rc == -EOVERFLOW) {
			snprintf(where, sizeof(where), "stacks[%zu].weight", i);
			rc = bad(ld, where, "the weights add up beyond 2^64-1; " DAMAGED);
		}
	}
	free(ids);
	return rc;
}

/* One "lines" entry's source (all optional: an address no line table covers has none). */
static int read_source(struct loader *ld, const json_t *e, size_t i, struct pmc_profile_line *l)
{
	static const char *const strs[] = {"file", "inlined", "call_file"};
	const char **dst[] = {&l->file, &l->inlined, &l->call_file};
	uint64_t line = 0, call_line = 0;
	char where[64];
	int rc;

	for (size_t k = 0; k < 3; k++) {
		snprintf(where, sizeof(where), "lines[%zu].%s", i, strs[k]);
		if ((rc = get_str(ld, json_object_get(e, strs[k]), where, true, dst[k])) < 0)
			return rc;
	}
	snprintf(where, sizeof(where), "lines[%zu].line", i);
	if ((rc = get_u64(ld, json_object_get(e, "line"), where, !l->file, &line)) < 0)
		return rc;
	snprintf(where, sizeof(where), "lines[%zu].call_line", i);
	if ((rc = get_u64(ld, json_object_get(e, "call_line"), where, !l->call_file, &call_line)) <
	    0)
		return rc;
	if (line > UINT32_MAX || call_line > UINT32_MAX)
		return bad(ld, where, "a line beyond 2^32-1; " DAMAGED);
	l->line = (uint32_t)line;
	l->call_line = (uint32_t)call_line;
	return 0;
}

/* "lines", absent from profiles that keep no source lines (docs/profile.md). */
static int read_lines(struct loader *ld, const json_t *lines, size_t nframes, const uint32_t *map,
		      struct pmc_profile *p)
{
	static const char *const nums[] = {"frame", "address", "weight", "samples"};
	struct pmc_profile_lines *t;
	char where[64];
	int rc;

	if (!lines)
		return 0;
	if (!json_is_array(lines))
		return bad(ld, "lines", "expected an array, got %s; " DAMAGED,
			   pmc_json_kind(lines));
	if ((rc = pmc_profile_lines_new(&t)) < 0)
		return rc;
	pmc_profile_set_lines(p, t);
	for (size_t i = 0; i < json_array_size(lines); i++) {
		const json_t *e = json_array_get(lines, i);
		struct pmc_profile_line l = {0};
		uint64_t v[4];

		if (!json_is_object(e)) {
			snprintf(where, sizeof(where), "lines[%zu]", i);
			return bad(ld, where, "expected an object, got %s; " DAMAGED,
				   pmc_json_kind(e));
		}
		for (size_t k = 0; k < 4; k++) {
			snprintf(where, sizeof(where), "lines[%zu].%s", i, nums[k]);
			if ((rc = get_u64(ld, json_object_get(e, nums[k]), where, false, &v[k])) <
			    0)
				return rc;
		}
		if (v[0] >= nframes) {
			snprintf(where, sizeof(where), "lines[%zu].frame", i);
			return bad(ld, where,
				   "%" PRIu64 " is not a frame id (there are %zu); " DAMAGED, v[0],
				   nframes);
		}
		if ((rc = read_source(ld, e, i, &l)) < 0 ||
		    (rc = pmc_profile_lines_add(t, map[v[0]], v[1], v[2], v[3])) < 0)
			return rc;
		/* A file lists each (frame, address) once, so the entry just added is i. */
		if (pmc_profile_lines_count(t) != i + 1) {
			snprintf(where, sizeof(where), "lines[%zu]", i);
			return bad(ld, where, "repeats an earlier frame and address; " DAMAGED);
		}
		if ((rc = pmc_profile_lines_set_source(t, i, &l)) < 0)
			return rc;
	}
	return 0;
}

static int profile_from_json(struct loader *ld, const json_t *root, struct pmc_profile **ret)
{
	struct pmc_profile_info in = {0};
	struct pmc_profile *p = NULL;
	const json_t *frames, *tasks;
	uint32_t *map = NULL, *task_map = NULL;
	uint64_t total;
	int rc;

	if (!json_is_object(root))
		return bad(ld, "(top)",
			   "expected a JSON object with \"schema\": \"%s\", got %s; give a "
			   "profile pmcbench saved",
			   PMC_PROFILE_SCHEMA, pmc_json_kind(root));
	if ((rc = check_schema(ld, root)) < 0 || (rc = read_info(ld, root, &in)) < 0 ||
	    (rc = get_u64(ld, json_object_get(root, "total"), "total", false, &total)) < 0)
		return rc;
	rc = pmc_profile_new(&in, &p);
	if (rc < 0)
		return rc;
	frames = json_object_get(root, "frames");
	rc = read_frames(ld, frames, p, &map);
	if (rc < 0)
		goto fail;
	tasks = json_object_get(root, "tasks");
	rc = read_tasks(ld, tasks, p, &task_map);
	if (rc < 0)
		goto fail;
	rc = read_stacks(ld, json_object_get(root, "stacks"), json_array_size(frames), map,
			 json_array_size(tasks), task_map, in.kind == PMC_PROFILE_SAMPLED, p);
	if (rc < 0)
		goto fail;
	rc = read_lines(ld, json_object_get(root, "lines"), json_array_size(frames), map, p);
	if (rc < 0)
		goto fail;
	if (pmc_profile_total(p) != total) {
		rc = bad(ld, "total",
			 "%" PRIu64 ", but the stacks' weights add up to %" PRIu64 "; " DAMAGED,
			 total, pmc_profile_total(p));
		goto fail;
	}
	free(map);
	free(task_map);
	*ret = p;
	return 0;
fail:
	free(map);
	free(task_map);
	pmc_profile_free(p);
	return rc;
}

int pmc_profile_open(const char *path, FILE **ret, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		int rc = -errno;

		pmc_err_set(err, errlen, "%s: %s; check the file name and its permissions", path,
			    strerror(errno));
		return rc;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		pmc_err_set(err, errlen, "%s: is a directory; give the path of a profile file",
			    path);
		fclose(f);
		return -EINVAL;
	}
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		pmc_err_set(err, errlen,
			    "%s: is not a regular file or a pipe (a device?); give the path of a "
			    "profile file",
			    path);
		fclose(f);
		return -EINVAL;
	}
	*ret = f;
	return 0;
}

int pmc_profile_load_json(FILE *f, const char *path, struct pmc_profile **ret, char *err,
			  size_t errlen)
{
	struct loader ld = {.file = path, .err = err, .errlen = errlen};
	json_error_t jerr;
	json_t *root;
	int rc;

	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (json_error_code(&jerr) == json_error_out_of_memory) {
			pmc_err_set(err, errlen, "%s: out of memory", path);
			return -ENOMEM;
		}
		if (ferror(f)) {
			pmc_err_set(err, errlen, "%s: cannot read: %s", path, strerror(EIO));
			return -EIO;
		}
		/* Cut short (a copy that stopped, a full disk) or not JSON at all. */
		pmc_err_set(err, errlen,
			    "%s:%d:%d: %s; the file is cut short or not JSON: record the profile "
			    "again",
			    path, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	rc = profile_from_json(&ld, root, ret);
	if (rc == -ENOMEM)
		pmc_err_set(err, errlen, "%s: out of memory", path);
	json_decref(root);
	return rc;
}

int pmc_profile_load(const char *path, struct pmc_profile **ret, char *err, size_t errlen)
{
	FILE *f = NULL;
	int rc;

	if (!path || !ret)
		return -EINVAL;
	rc = pmc_profile_open(path, &f, err, errlen);
	if (rc == 0) {
		rc = pmc_profile_load_json(f, path, ret, err, errlen);
		fclose(f);
	}
	if (rc < 0)
		pmc_err_escape(err, errlen);
	return rc;
}
