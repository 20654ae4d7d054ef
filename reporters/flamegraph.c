/* Flame graphs (docs/profile.md, "Flame graphs"). The stacks are sorted by their frames,
 * so that equal prefixes are adjacent: one pass then merges them into a tree whose nodes
 * come out in depth-first order with each node's children sorted by name, which fixes
 * every frame's position without a second sort. The SVG holds one <g> per kept frame,
 * so its size is linear in the number of nodes; the script only moves what is there. */
#include "reporters/flamegraph.h"
#include "reporters/escape.h"

#include "base/grow.h"
#include "base/utf8.h"
#include "reporters/format.h"
#include "profile/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	FRAME_H = 16, /* pixels per stack level */
	FONT_PX = 12,
	PAD = 10,    /* left and right margin */
	TOP = 78,    /* title, subtitle and controls */
	BOTTOM = 50, /* the details line and the notes under the graph */
	DEFAULT_W = 1200,
};
/* By default frames narrower than this are left out (flamegraph.pl's --minwidth): they
 * cannot be seen nor clicked, and a profile with many tiny frames would otherwise make
 * the file huge. */
#define MIN_PX 0.1
/* Average advance of a character of a sans-serif face at FONT_PX, to cut a name so that
 * it fits its frame before the script runs (the script cuts again after a zoom). */
#define CHAR_PX (FONT_PX * 0.59)

struct node {
	const char *name;
	uint32_t depth; /* 0 for the root */
	uint64_t total; /* weight of the stacks through this frame */
	uint64_t old_total;
	uint64_t samples, old_samples;
	uint64_t next; /* weight already placed under this node, for its next child */
	uint64_t x;    /* weight to the left of this frame */
};

struct tree {
	struct node *v; /* grown by pmc_grow */
	size_t n;
};

static int tree_add(struct tree *t, const char *name, uint32_t depth, uint64_t x)
{
	if (pmc_grow(&t->v, t->n, sizeof(*t->v)) < 0)
		return -ENOMEM;
	t->v[t->n++] = (struct node){.name = name, .depth = depth, .x = x, .next = x};
	return 0;
}

static int cmp_stacks(const void *a, const void *b)
{
	const struct pmc_flame_stack *s = *(const struct pmc_flame_stack *const *)a;
	const struct pmc_flame_stack *u = *(const struct pmc_flame_stack *const *)b;
	for (uint32_t i = 0; i < s->depth && i < u->depth; i++) {
		int c = strcmp(s->frames[i], u->frames[i]);
		if (c)
			return c;
	}
	return (s->depth > u->depth) - (s->depth < u->depth);
}

static int add_u64(uint64_t *sum, uint64_t w)
{
	if (*sum > UINT64_MAX - w)
		return -EINVAL;
	*sum += w;
	return 0;
}

/* Merges the sorted stacks into t, root first; path[d] is the node at depth d of the
 * stack placed last. */
static int build_tree(struct tree *t, const struct pmc_flame_stack **sorted, size_t n, size_t *path)
{
	int r = tree_add(t, "all", 0, 0);
	if (r)
		return r;
	path[0] = 0;
	uint32_t len = 0; /* depth of the last stack */
	for (size_t k = 0; k < n; k++) {
		const struct pmc_flame_stack *s = sorted[k];
		uint32_t d = 0;
		while (d < s->depth && d < len && !strcmp(t->v[path[d + 1]].name, s->frames[d]))
			d++;
		for (; d < s->depth; d++) {
			struct node *parent = &t->v[path[d]];
			if ((r = tree_add(t, s->frames[d], d + 1, parent->next)))
				return r;
			path[d + 1] = t->n - 1;
		}
		len = s->depth;
		for (uint32_t i = 0; i <= len; i++) {
			struct node *v = &t->v[path[i]];
			if ((r = add_u64(&v->total, s->weight)) ||
			    (r = add_u64(&v->old_total, s->old_weight)) ||
			    (r = add_u64(&v->samples, s->samples)) ||
			    (r = add_u64(&v->old_samples, s->old_samples)))
				return r;
			if (i < len)
				v->next += s->weight; /* the child at i+1 takes this much */
		}
	}
	return 0;
}

/* Characters in s as pmc_escape_xml() counts them. */
static size_t text_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	for (; *p; n++) {
		size_t l = pmc_utf8_len(p);
		p += l ? l : 1;
	}
	return n;
}

/* FNV-1a (Fowler, Noll, Vo): a stable hash, so that a name has the same colour in every
 * graph and on every machine. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void plain_colour(const char *name, unsigned rgb[3])
{
	uint32_t h = name_hash(name);
	/* Warm hues: red high, green anywhere from red to yellow, little blue. */
	rgb[0] = 205 + h % 51;
	rgb[1] = (h >> 8) % 231;
	rgb[2] = (h >> 20) % 56;
}

/* Red for a frame whose share of the total grew, blue for one that shrank, white for one
 * unchanged, fully saturated at the largest change in the graph. */
static void diff_colour(double delta, double max_abs, unsigned rgb[3])
{
	double t = max_abs > 0 ? fabs(delta) / max_abs : 0;
	unsigned fade = (unsigned)lround(255 * (1 - t));
	if (delta > 0) {
		rgb[0] = 255, rgb[1] = fade, rgb[2] = fade;
	} else if (delta < 0) {
		rgb[0] = fade, rgb[1] = fade, rgb[2] = 255;
	} else {
		rgb[0] = rgb[1] = rgb[2] = 255;
	}
}

/* In two parts: ISO C compilers need support strings of only 4095 characters. */
static const char SCRIPT_ZOOM[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "'use strict';\n"
    "(function () {\n"
    "var svg = document.documentElement, NS = 'http://www.w3.org/2000/svg';\n"
    "try {\n"
    "var W = +svg.getAttribute('data-w'), PAD = +svg.getAttribute('data-pad');\n"
    "var CH = +svg.getAttribute('data-ch');\n"
    "var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
    "/* A tooltip's first line names the frame; lines after it are its notes. */\n"
    "function head(g) { return g.querySelector('title').textContent.split('\\n')[0]; }\n"
    "var info = frames.map(function (g) {\n"
    "  var r = g.querySelector('rect'), t = head(g);\n"
    "  return {g: g, r: r, t: g.querySelector('text'), x: +r.getAttribute('x'),\n"
    "          w: +r.getAttribute('width'), y: +r.getAttribute('y'),\n"
    "          fill: r.getAttribute('fill'), name: t.slice(0, t.lastIndexOf(' ('))};\n"
    "});\n"
    "function label(f, w) {\n"
    "  var n = Math.floor((w - 6) / CH), s = f.name;\n"
    "  if (n < 3) s = ''; else if (s.length > n) s = s.slice(0, n - 2) + '..';\n"
    "  f.t.textContent = s; f.t.setAttribute('x', +f.r.getAttribute('x') + 3);\n"
    "}\n"
    "/* Whether a frame at height a is nearer the root than one at b: below it in a flame\n"
    " * graph, above it in an icicle graph. */\n"
    "var INV = svg.getAttribute('data-inverted') === '1';\n"
    "function rootward(a, b) { return INV ? a < b : a > b; }\n"
    "function zoom(z) {\n"
    "  var full = W - 2 * PAD, k = full / z.w;\n"
    "  info.forEach(function (f) {\n"
    "    var nx, nw;\n"
    "    if ((f.y === z.y || rootward(f.y, z.y)) && f.x <= z.x + 0.01 &&\n"
    "        f.x + f.w >= z.x + z.w - 0.01) {\n"
    "      nx = PAD; nw = full; f.g.setAttribute('class', f.y !== z.y ? 'f anc' : 'f');\n"
    "    } else if (rootward(z.y, f.y) && f.x >= z.x - 0.01 && f.x + f.w <= z.x + z.w + 0.01) {\n"
    "      nx = PAD + (f.x - z.x) * k; nw = f.w * k; f.g.setAttribute('class', 'f');\n"
    "    } else { f.g.setAttribute('class', 'f hid'); return; }\n"
    "    f.r.setAttribute('x', nx.toFixed(2)); f.r.setAttribute('width', nw.toFixed(2));\n"
    "    label(f, nw);\n"
    "  });\n"
    "  document.getElementById('reset').setAttribute('class', 'ctl');\n"
    "}\n"
    "function reset() {\n"
    "  info.forEach(function (f) {\n"
    "    f.g.setAttribute('class', 'f');\n"
    "    f.r.setAttribute('x', f.x.toFixed(2)); f.r.setAttribute('width', f.w.toFixed(2));\n"
    "    label(f, f.w);\n"
    "  });\n"
    "  document.getElementById('reset').setAttribute('class', 'ctl hid');\n"
    "}\n";
static const char SCRIPT_SEARCH[] =
    "var matched = document.getElementById('matched');\n"
    "function search(re) {\n"
    "  var spans = [];\n"
    "  info.forEach(function (f) {\n"
    "    var hit = re !== null && re.test(f.name);\n"
    "    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "    if (hit) { f.g.setAttribute('data-match', '1'); spans.push([f.x, f.x + f.w]); }\n"
    "    else f.g.removeAttribute('data-match');\n"
    "  });\n"
    "  if (re === null) { matched.textContent = ''; svg.removeAttribute('data-matched');\n"
    "    document.getElementById('clear').setAttribute('class', 'ctl hid'); return; }\n"
    "  /* Nested frames overlap: the union of the spans counts each sample once. */\n"
    "  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
    "  var sum = 0, end = -1;\n"
    "  spans.forEach(function (s) {\n"
    "    if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }\n"
    "    else if (s[1] > end) { sum += s[1] - end; end = s[1]; }\n"
    "  });\n"
    "  var pct = (100 * sum / (W - 2 * PAD)).toFixed(2) + '%';\n"
    "  matched.textContent = 'Matched: ' + pct;\n"
    "  svg.setAttribute('data-matched', pct);\n"
    "  document.getElementById('clear').setAttribute('class', 'ctl');\n"
    "}\n"
    "/* Ignore case (the 'ic' control, or ?i=1), as flamegraph.pl's: the search in force\n"
    " * runs again when it changes. */\n"
    "var IC = false, last = null, icEl = document.getElementById('ic');\n"
    "function find(s) { last = s; search(s === null ? null : new RegExp(s, IC ? 'i' : '')); }\n"
    "function ignoreCase(on) {\n"
    "  IC = on; icEl.setAttribute('class', on ? 'ctl on' : 'ctl');\n"
    "  svg.setAttribute('data-ic', on ? '1' : '0');\n"
    "  if (last !== null) find(last);\n"
    "}\n"
    "function ask() {\n"
    "  var s = window.prompt('Search (regular expression' + (IC ? ', any case' : '') + ')', '');\n"
    "  if (s === null || s === '') return;\n"
    "  try { find(s); } catch (e) { window.alert('Bad regular expression: ' + e.message); }\n"
    "}\n"
    "/* The details line: the frame under the pointer, as its tooltip says it. */\n"
    "var details = document.getElementById('details');\n"
    "info.forEach(function (f) {\n"
    "  var t = head(f.g);\n"
    "  f.g.addEventListener('click', function () { zoom(f); });\n"
    "  f.g.addEventListener('mouseover', function () { details.textContent = 'Function: ' + t; "
    "});\n"
    "  f.g.addEventListener('mouseout', function () { details.textContent = ''; });\n"
    "});\n"
    "icEl.addEventListener('click', function () { ignoreCase(!IC); });\n"
    "document.getElementById('reset').addEventListener('click', reset);\n"
    "document.getElementById('search').addEventListener('click', ask);\n"
    "document.getElementById('clear').addEventListener('click', function () { find(null); });\n"
    "window.addEventListener('keydown', function (e) {\n"
    "  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }\n"
    "  else if (e.key === 'Escape') { reset(); find(null); }\n"
    "});\n"
    "/* ?s=REGEX searches, ?i=1 ignores case and ?z=NAME zooms at load (or #s=, #i=, #z=):\n"
    " * a link can share them, and the browser test uses them. A parameter that is no\n"
    " * valid URL escape is taken as it is, and a search that is no valid regular\n"
    " * expression ('?s=(') is searched as text: neither stops the page. */\n"
    "var loc = window.location.search + window.location.hash;\n"
    "function param(k) {\n"
    "  var m = new RegExp('[?#&]' + k + '=([^&#]*)').exec(loc);\n"
    "  if (!m) return null;\n"
    "  try { return decodeURIComponent(m[1]); } catch (e) { return m[1]; }\n"
    "}\n"
    "if (/[?#&]i=1/.test(loc)) ignoreCase(true);\n"
    "var q = param('s');\n"
    "if (q !== null && q !== '') {\n"
    "  try { find(q); } catch (e) {\n"
    "    find(q.replace(/[\\\\^$.*+?()[\\]{}|\\/-]/g, '\\\\$&'));\n"
    "    svg.setAttribute('data-search-text', '1');\n"
    "    matched.textContent += ' (searched as text: not a regular expression)';\n"
    "  }\n"
    "}\n"
    "var z = param('z');\n"
    "if (z !== null) info.some(function (f) {\n"
    "  return f.name === z && (zoom(f), true);\n"
    "});\n"
    "svg.setAttribute('data-ready', '1');\n"
    "} catch (e) {\n"
    "  svg.setAttribute('data-error', String(e));\n"
    "  var t = document.createElementNS(NS, 'text');\n"
    "  t.setAttribute('x', 10); t.setAttribute('y', 60); t.setAttribute('id', 'script-error');\n"
    "  t.textContent = 'script error: ' + e; svg.appendChild(t);\n"
    "}\n"
    "})();\n"
    "]]></script>\n";

static const char STYLE[] =
    "<style type=\"text/css\">\n"
    "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: 12px; fill: #000; }\n"
    "g.f { cursor: pointer; }\n"
    "g.f text { pointer-events: none; }\n"
    "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
    "g.anc { opacity: 0.5; }\n"
    ".hid { display: none; }\n"
    ".ctl { cursor: pointer; fill: #1a4f9c; }\n"
    ".ctl.on { font-weight: bold; text-decoration: underline; }\n"
    ".ttl { font-size: 17px; text-anchor: middle; }\n"
    ".sub { fill: #444; text-anchor: middle; }\n"
    "</style>\n";

/* An absolute graph's change of v's weight, with its sampling interval when the profiles
 * are sampled (pmc_profile_change): clear says whether it is beyond sampling error. */
static void frame_change(const struct node *v, const struct pmc_flame_opts *o, double *change,
			 double *lo, double *hi, bool *clear)
{
	pmc_profile_change(v->old_total, v->old_samples, o->old_per_sample, v->total, v->samples,
			   o->new_per_sample, change, lo, hi, clear);
}

/* The note of frame v, or NULL: one whose function has one and whose share is enough. */
static const char *frame_note(const struct node *v, double share, const struct pmc_flame_opts *o)
{
	if (share < o->note_min_share)
		return NULL;
	for (size_t i = 0; i < o->nnotes; i++)
		if (strcmp(o->notes[i].name, v->name) == 0)
			return o->notes[i].text;
	return NULL;
}

/* A note's lines, each after a newline of the tooltip: escaped one by one, since the
 * escaping would take the newline for a control character. */
static void write_note(FILE *out, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char *line = strndup(text, len);

		putc('\n', out);
		if (line)
			pmc_escape_xml(out, line, SIZE_MAX);
		free(line);
		text += len + (nl != NULL);
	}
}

static void write_frame(FILE *out, const struct node *v, const struct node *root, double px,
			const struct pmc_flame_opts *o, double max_abs, unsigned height)
{
	double x = PAD + (double)v->x * px, w = (double)v->total * px;
	double y = o->inverted ? TOP + (double)v->depth * FRAME_H
			       : height - BOTTOM - (double)(v->depth + 1) * FRAME_H;
	double share = 100.0 * (double)v->total / (double)root->total;
	char a[PMC_FMT_MAX + 64], b[PMC_FMT_MAX + 64];
	const char *note;
	unsigned rgb[3];

	/* Weights in the profile's unit, as the text report shows them ("419.5ms",
	 * "1.201M instructions"), never raw nanoseconds. */
	fputs("<g class=\"f\"><title>", out);
	pmc_escape_xml(out, v->name, SIZE_MAX);
	pmc_fmt_weight((double)v->total, o->unit, false, a, sizeof(a));
	fputs(" (", out);
	pmc_escape_xml(out, a, SIZE_MAX);
	if (o->differential && o->absolute) {
		const char *u = o->unit && strcmp(o->unit, "ns") == 0 ? "ns" : "count";
		double change, lo, hi;
		bool clear;

		frame_change(v, o, &change, &lo, &hi, &clear);
		pmc_fmt_weight((double)v->old_total, u, false, a, sizeof(a));
		pmc_fmt_weight((double)v->total, u, false, b, sizeof(b));
		fprintf(out, ", %s \xe2\x86\x92 %s, ", a, b);
		pmc_fmt_weight(change, u, true, a, sizeof(a));
		pmc_escape_xml(out, a, SIZE_MAX);
		if (o->old_per_sample || o->new_per_sample) {
			pmc_fmt_weight(lo, u, true, a, sizeof(a));
			pmc_fmt_weight(hi, u, true, b, sizeof(b));
			fputs(" [", out);
			pmc_escape_xml(out, a, SIZE_MAX);
			fputs(", ", out);
			pmc_escape_xml(out, b, SIZE_MAX);
			fputs(clear ? "])" : "], within sampling error)", out);
		} else {
			putc(')', out);
		}
		diff_colour(clear ? change : 0, max_abs, rgb);
	} else if (o->differential) {
		double old = 100.0 * (double)v->old_total / (double)root->old_total;
		fprintf(out, ", %.2f%% \xe2\x86\x92 %.2f%%, %+.2f pp)", old, share, share - old);
		diff_colour(share - old, max_abs, rgb);
	} else {
		fprintf(out, ", %.2f%%)", share);
		plain_colour(v->name, rgb);
	}
	if ((note = frame_note(v, share, o)))
		write_note(out, note);
	fprintf(out,
		"</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
		"fill=\"rgb(%u,%u,%u)\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2], x + 3, y + FRAME_H - 4.5);
	double fit = floor((w - 6) / CHAR_PX);
	if (fit >= 3) {
		size_t max = text_chars(v->name) > (size_t)fit ? (size_t)fit - 2 : SIZE_MAX;
		pmc_escape_xml(out, v->name, max);
	}
	fputs("</text></g>\n", out);
}

/* A graph with no weight to draw (an empty profile, or a differential one whose old
 * side is empty): a valid SVG that says so, as flamegraph.pl says so for empty input. */
static int write_empty(FILE *out, const struct pmc_flame_opts *o, const char *why)
{
	unsigned width = o->width ? o->width : DEFAULT_W, height = TOP + BOTTOM + FRAME_H;

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" data-frames=\"0\">\n",
		width, height, width, height);
	fputs(STYLE, out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f6f6f2\"/>\n", width,
		height);
	fprintf(out, "<text class=\"ttl\" x=\"%u\" y=\"24\">", width / 2);
	pmc_escape_xml(out, o->title ? o->title : "Flame graph", SIZE_MAX);
	fprintf(out,
		"</text>\n<text id=\"note\" x=\"%u\" y=\"%u\" "
		"style=\"text-anchor: middle\">",
		width / 2, TOP + FRAME_H);
	pmc_escape_xml(out, why, SIZE_MAX);
	fputs("</text>\n</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int pmc_flamegraph_write(FILE *out, const struct pmc_flame_stack *stacks, size_t n,
			 const struct pmc_flame_opts *o)
{
	const struct pmc_flame_stack **sorted = NULL;
	size_t *path = NULL;
	struct tree t = {0};
	uint32_t max_depth = 0;
	int r;

	if (!out || !o || (!stacks && n))
		return -EINVAL;
	if (n == 0)
		return write_empty(out, o, "No samples: nothing to draw");
	for (size_t i = 0; i < n; i++) {
		if (stacks[i].depth == 0 || !stacks[i].frames)
			return -EINVAL;
		for (uint32_t d = 0; d < stacks[i].depth; d++)
			if (!stacks[i].frames[d])
				return -EINVAL;
		if (stacks[i].depth > max_depth)
			max_depth = stacks[i].depth;
	}

	r = -ENOMEM;
	sorted = malloc(n * sizeof(*sorted));
	path = malloc(((size_t)max_depth + 1) * sizeof(*path));
	if (!sorted || !path)
		goto out_free;
	for (size_t i = 0; i < n; i++)
		sorted[i] = &stacks[i];
	qsort(sorted, n, sizeof(*sorted), cmp_stacks);
	if ((r = build_tree(&t, sorted, n, path)))
		goto out_free;

	const struct node *root = &t.v[0];
	/* Widths are shares of the total and a differential graph's colours shares of each
	 * side's total: with no weight there is nothing to draw. */
	if (root->total == 0 || (o->differential && root->old_total == 0)) {
		r = write_empty(out, o,
				root->total == 0 ? "No samples: nothing to draw"
						 : "The old profile has no samples: "
						   "nothing to compare");
		goto out_free;
	}
	r = -EINVAL;

	unsigned width = o->width ? o->width : DEFAULT_W;
	double min_px = o->min_width > 0 ? o->min_width : MIN_PX;
	if (width < PMC_FLAME_MIN_WIDTH || !(o->min_width >= 0) || !isfinite(o->min_width))
		goto out_free;
	unsigned height = TOP + (max_depth + 1) * FRAME_H + BOTTOM;
	double px = (double)(width - 2 * PAD) / (double)root->total;
	double max_abs = 0;
	size_t omitted = 0;
	for (size_t i = 0; i < t.n; i++) {
		if ((double)t.v[i].total * px < min_px)
			omitted++;
		if (o->differential) {
			/* Absolute: amounts of one thing, compared as they are; a change within
			 * sampling error is white and sets no scale. */
			double d, lo, hi;
			bool clear = true;

			if (o->absolute)
				frame_change(&t.v[i], o, &d, &lo, &hi, &clear);
			else
				d = 100.0 * ((double)t.v[i].total / (double)root->total -
					     (double)t.v[i].old_total / (double)root->old_total);
			if (clear && fabs(d) > max_abs)
				max_abs = fabs(d);
		}
	}

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" data-w=\"%u\" data-pad=\"%d\" "
		"data-ch=\"%.3f\" data-frames=\"%zu\" data-omitted=\"%zu\" data-inverted=\"%d\">\n",
		width, height, width, height, width, PAD, CHAR_PX, t.n - omitted, omitted,
		o->inverted ? 1 : 0);
	fputs(STYLE, out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f6f6f2\"/>\n", width,
		height);
	fprintf(out, "<text class=\"ttl\" x=\"%u\" y=\"24\">", width / 2);
	pmc_escape_xml(out, o->title ? o->title : "Flame graph", SIZE_MAX);
	fputs("</text>\n", out);
	if (o->subtitle) {
		fprintf(out, "<text class=\"sub\" x=\"%u\" y=\"44\">", width / 2);
		pmc_escape_xml(out, o->subtitle, SIZE_MAX);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text id=\"reset\" class=\"ctl hid\" x=\"%d\" y=\"66\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%u\" y=\"66\" "
		"style=\"text-anchor: end\">Search</text>\n"
		"<text id=\"ic\" class=\"ctl\" x=\"%u\" y=\"66\" "
		"style=\"text-anchor: end\"><title>ignore case</title>ic</text>\n"
		"<text id=\"clear\" class=\"ctl hid\" x=\"%u\" y=\"66\" "
		"style=\"text-anchor: end\">Clear</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"></text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\" style=\"text-anchor: end\"></text>\n",
		PAD, width - PAD, width - PAD - 52, width - PAD - 72, PAD, height - 30, width - PAD,
		height - 12);
	if (o->differential && o->absolute) {
		fprintf(out,
			"<text id=\"legend\" x=\"%u\" y=\"66\" style=\"text-anchor: middle\">"
			"widths: new profile; red: grew, blue: shrank, white: unchanged%s "
			"(largest change ",
			width / 2,
			o->old_per_sample || o->new_per_sample ? " or within sampling error" : "");
		char a[PMC_FMT_MAX + 64];

		pmc_fmt_weight(max_abs, o->unit, false, a, sizeof(a));
		pmc_escape_xml(out, a, SIZE_MAX);
		fputs(")</text>\n", out);
	} else if (o->differential) {
		fprintf(out,
			"<text id=\"legend\" x=\"%u\" y=\"66\" style=\"text-anchor: middle\">"
			"widths: new profile; red: share grew, blue: share shrank "
			"(largest change %.2f pp)</text>\n",
			width / 2, max_abs);
	}
	if (omitted)
		fprintf(out,
			"<text id=\"note\" x=\"%d\" y=\"%u\">%zu frame%s narrower than %g px "
			"omitted</text>\n",
			PAD, height - 12, omitted, omitted == 1 ? "" : "s", min_px);

	for (size_t i = 0; i < t.n; i++)
		if ((double)t.v[i].total * px >= min_px)
			write_frame(out, &t.v[i], root, px, o, max_abs, height);
	fputs(SCRIPT_ZOOM, out);
	fputs(SCRIPT_SEARCH, out);
	fputs("</svg>\n", out);
	r = ferror(out) ? -EIO : 0;

out_free:
	free(t.v);
	free(path);
	free(sorted);
	return r;
}
