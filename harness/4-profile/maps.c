/* Address spaces of profiled tasks and symbolization through them (maps.h). A task's
 * mappings are kept sorted and disjoint, as the kernel's are: a new mapping replaces what
 * it overlaps, as mmap(MAP_FIXED) does. The ELF symbols of each mapped file are loaded
 * once per path, on the first address resolved in it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/sample.h"
#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "elf/symbols.h"
#include "profile/kallsyms.h"
#include "profile/maps.h"
#include "profile/jit_map.h"
#include "profile/jitdump.h"

/* The kernel's BUILD_ID_SIZE_MAX: the longest build-id an MMAP2 record carries. */
#define BUILD_ID_MAX 20

struct map {
	uint64_t start, end, pgoff;
	size_t obj; /* index into pmc_maps.objs */
	uint8_t bid_len;
	uint8_t bid[BUILD_ID_MAX];
};

struct task {
	char key[16]; /* the pid in decimal: the key of pmc_maps.task_index */
	struct map *maps;
	size_t n, cap;
	struct pmc_jit_map *jit;  /* its /tmp/perf-PID.map, once an address needed it */
	struct pmc_jitdump *dump; /* its jit-PID.dump, once it mapped one */
	bool dump_noted;	  /* the dump's problem is in the notes */
};

enum obj_state { OBJ_UNLOADED, OBJ_LOADED, OBJ_FAILED };

struct obj {
	char *path;	     /* the key of pmc_maps.obj_index */
	const char *special; /* "[vdso]", "[anon]", ...: never read as a file */
	struct pmc_symtab *tab;
	enum obj_state state;
	bool mismatch_noted;
};

struct pmc_maps {
	struct task **tasks;
	size_t ntasks, tasks_cap;
	struct pmc_hashmap task_index;
	struct obj *objs;
	size_t nobjs, objs_cap;
	struct pmc_hashmap obj_index;
	char **problems;
	size_t nproblems, problems_cap;
	struct pmc_kallsyms *kernel;
	enum obj_state kernel_state;
	char *kallsyms_path; /* NULL: /proc/kallsyms */
	char *jit_dir;	     /* where perf maps are: NULL, /tmp */
	uint64_t time;	     /* of the sample being named (pmc_maps_at) */
};

int pmc_maps_new(struct pmc_maps **ret)
{
	struct pmc_maps *m;

	if (!ret)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*ret = m;
	return 0;
}

void pmc_maps_free(struct pmc_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ntasks; i++) {
		free(m->tasks[i]->maps);
		pmc_jit_map_free(m->tasks[i]->jit);
		pmc_jitdump_free(m->tasks[i]->dump);
		free(m->tasks[i]);
	}
	free(m->tasks);
	pmc_hashmap_free(&m->task_index);
	for (size_t i = 0; i < m->nobjs; i++) {
		pmc_symtab_free(m->objs[i].tab);
		free(m->objs[i].path);
	}
	free(m->objs);
	pmc_hashmap_free(&m->obj_index);
	for (size_t i = 0; i < m->nproblems; i++)
		free(m->problems[i]);
	free(m->problems);
	pmc_kallsyms_free(m->kernel);
	free(m->kallsyms_path);
	free(m->jit_dir);
	free(m);
}

int pmc_maps_set_kallsyms(struct pmc_maps *m, const char *path)
{
	char *p;

	if (!m || !path)
		return -EINVAL;
	if (!(p = strdup(path)))
		return -ENOMEM;
	free(m->kallsyms_path);
	m->kallsyms_path = p;
	pmc_kallsyms_free(m->kernel);
	m->kernel = NULL;
	m->kernel_state = OBJ_UNLOADED;
	return 0;
}

int pmc_maps_set_jit_dir(struct pmc_maps *m, const char *dir)
{
	char *d;

	if (!m || !dir)
		return -EINVAL;
	if (!(d = strdup(dir)))
		return -ENOMEM;
	free(m->jit_dir);
	m->jit_dir = d;
	return 0;
}

/* A process's address space is new (exec, a new process): its perf map is another
 * program's, read again from its start. */
static void jit_forget(struct task *t)
{
	pmc_jit_map_free(t->jit);
	t->jit = NULL;
	pmc_jitdump_free(t->dump);
	t->dump = NULL;
	t->dump_noted = false;
}

/* A mapping of pid's own jitdump (jitdump.h): the file that names its JIT code from now
 * on (a runtime that starts another dump, another file, replaces the first). */
static int dump_mapped(struct task *t, const char *filename)
{
	struct pmc_jitdump *d;
	int rc;

	if (t->dump && strcmp(pmc_jitdump_path(t->dump), filename) == 0)
		return 0;
	if ((rc = pmc_jitdump_new(filename, &d)) < 0)
		return rc;
	pmc_jitdump_free(t->dump);
	t->dump = d;
	t->dump_noted = false;
	return 0;
}

static struct task *task_find(const struct pmc_maps *m, uint32_t pid)
{
	char key[16];
	size_t i;

	snprintf(key, sizeof(key), "%" PRIu32, pid);
	return pmc_hashmap_get(&m->task_index, key, &i) == 0 ? m->tasks[i] : NULL;
}

static int task_get(struct pmc_maps *m, uint32_t pid, struct task **ret)
{
	struct task *t = task_find(m, pid);
	int rc;

	if (!t) {
		if ((rc = pmc_grow_to(&m->tasks, &m->tasks_cap, m->ntasks + 1, sizeof(*m->tasks))) <
		    0)
			return rc;
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		snprintf(t->key, sizeof(t->key), "%" PRIu32, pid);
		if ((rc = pmc_hashmap_put(&m->task_index, t->key, m->ntasks)) < 0) {
			free(t);
			return rc;
		}
		m->tasks[m->ntasks++] = t;
	}
	*ret = t;
	return 0;
}

/* The object of a mapping's file name: one per name, the specials named as maps.h says. */
static int obj_get(struct pmc_maps *m, const char *filename, size_t *ret)
{
	const char *special = NULL;
	struct obj *o;
	size_t i;
	int rc;

	if (!filename || !*filename || strcmp(filename, "//anon") == 0 ||
	    strncmp(filename, "//anon", 6) == 0)
		filename = "[anon]";
	if (filename[0] == '[')
		special = filename;
	if (pmc_hashmap_get(&m->obj_index, filename, &i) == 0) {
		*ret = i;
		return 0;
	}
	if ((rc = pmc_grow_to(&m->objs, &m->objs_cap, m->nobjs + 1, sizeof(*m->objs))) < 0)
		return rc;
	o = &m->objs[m->nobjs];
	*o = (struct obj){.path = strdup(filename)};
	if (!o->path)
		return -ENOMEM;
	if (special)
		o->special = o->path;
	if ((rc = pmc_hashmap_put(&m->obj_index, o->path, m->nobjs)) < 0) {
		free(o->path);
		return rc;
	}
	*ret = m->nobjs++;
	return 0;
}

/* Puts [start, end) into t, cutting what it overlaps. */
static int task_insert(struct task *t, const struct map *nw)
{
	size_t lo = 0, hi, at;
	int rc;

	/* At most one old mapping is split in two, so two more slots suffice. */
	if ((rc = pmc_grow_to(&t->maps, &t->cap, t->n + 2, sizeof(*t->maps))) < 0)
		return rc;
	for (size_t i = 0; i < t->n;) {
		struct map *o = &t->maps[i];

		if (o->end <= nw->start || o->start >= nw->end) {
			i++;
		} else if (o->start < nw->start && o->end > nw->end) {
			struct map right = *o;

			right.pgoff += nw->end - o->start;
			right.start = nw->end;
			o->end = nw->start;
			memmove(&t->maps[i + 2], &t->maps[i + 1], (t->n - i - 1) * sizeof(*o));
			t->maps[i + 1] = right;
			t->n++;
			i += 2;
		} else if (o->start < nw->start) {
			o->end = nw->start;
			i++;
		} else if (o->end > nw->end) {
			o->pgoff += nw->end - o->start;
			o->start = nw->end;
			i++;
		} else {
			memmove(o, o + 1, (t->n - i - 1) * sizeof(*o));
			t->n--;
		}
	}
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->maps[mid].start < nw->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	at = lo;
	memmove(&t->maps[at + 1], &t->maps[at], (t->n - at) * sizeof(*t->maps));
	t->maps[at] = *nw;
	t->n++;
	return 0;
}

static int add_mapping(struct pmc_maps *m, uint32_t pid, uint64_t addr, uint64_t len,
		       uint64_t pgoff, const char *filename, const uint8_t *bid, size_t bid_len)
{
	struct map nw = {.start = addr, .pgoff = pgoff};
	struct task *t;
	int rc;

	/* An empty mapping or one past the end of the address space is not the kernel's. */
	if (len == 0 || len > UINT64_MAX - addr)
		return 0;
	nw.end = addr + len;
	if (bid && bid_len > 0 && bid_len <= BUILD_ID_MAX) {
		memcpy(nw.bid, bid, bid_len);
		nw.bid_len = (uint8_t)bid_len;
	}
	if ((rc = obj_get(m, filename, &nw.obj)) < 0 || (rc = task_get(m, pid, &t)) < 0)
		return rc;
	if (pmc_jitdump_is(filename, pid) && (rc = dump_mapped(t, filename)) < 0)
		return rc;
	return task_insert(t, &nw);
}

int pmc_maps_apply(struct pmc_maps *m, const struct pmc_record *rec)
{
	struct task *t, *parent;
	int rc;

	if (!m || !rec)
		return -EINVAL;
	switch (rec->type) {
	case PMC_RECORD_MMAP:
		return add_mapping(m, rec->pid, rec->mmap.addr, rec->mmap.len, rec->mmap.pgoff,
				   rec->mmap.filename, rec->mmap.build_id, rec->mmap.build_id_size);
	case PMC_RECORD_COMM:
		/* exec replaces the whole address space; the MMAP records of the new image
		 * follow. A rename (prctl PR_SET_NAME) changes nothing. */
		if (rec->comm.exec && (t = task_find(m, rec->pid))) {
			t->n = 0;
			jit_forget(t);
		}
		return 0;
	case PMC_RECORD_FORK:
		/* A new thread (pid == ppid) shares its process's address space. */
		if (rec->pid == rec->task.ppid)
			return 0;
		if ((rc = task_get(m, rec->pid, &t)) < 0)
			return rc;
		parent = task_find(m, rec->task.ppid);
		t->n = 0;
		jit_forget(t);
		if (!parent || parent->n == 0)
			return 0;
		if ((rc = pmc_grow_to(&t->maps, &t->cap, parent->n, sizeof(*t->maps))) < 0)
			return rc;
		memcpy(t->maps, parent->maps, parent->n * sizeof(*t->maps));
		t->n = parent->n;
		return 0;
	case PMC_RECORD_EXIT:
		/* The maps stay: records are replayed by time, and a sample stamped just
		 * before the exit, or a caller that resolves after applying every record,
		 * still finds them. A pid the kernel reuses comes with a FORK, which
		 * replaces them. */
		return 0;
	default:
		return 0;
	}
}

/* Keeps one line for the profile's notes. */
static int add_problem(struct pmc_maps *m, const char *text)
{
	char *s;
	int rc;

	if ((rc = pmc_grow_to(&m->problems, &m->problems_cap, m->nproblems + 1,
			      sizeof(*m->problems))) < 0)
		return rc;
	s = strdup(text);
	if (!s)
		return -ENOMEM;
	m->problems[m->nproblems++] = s;
	return 0;
}

/* The symbols of the vdso, read from this process's own: the kernel maps the same image
 * into every process of an ABI, and the profiled ones are gone by the time their samples
 * are named (perf reads its own vdso too). A task of another ABI (32-bit) has another
 * image, which the build-id of its MMAP2 record tells apart where the kernel gives one. */
static int vdso_load(struct pmc_symtab **ret, char *err, size_t errlen)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = -ENOENT;

	if (!f) {
		rc = -errno;
		pmc_err_set(err, errlen, "[vdso]: cannot read /proc/self/maps: %s", strerror(-rc));
		return rc;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end;
		size_t n = strlen(line);

		while (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n < 6 || strcmp(line + n - 6, "[vdso]") != 0 ||
		    sscanf(line, "%llx-%llx", &start, &end) != 2 || end <= start)
			continue;
		rc = pmc_symtab_load_image((const void *)(uintptr_t)start, (size_t)(end - start),
					   "[vdso]", ret, err, errlen);
		break;
	}
	if (rc == -ENOENT)
		pmc_err_set(err, errlen, "[vdso]: this process has none to read");
	free(line);
	fclose(f);
	return rc;
}

/* Loads o's symbols on first use; a failure is noted once and the object stays
 * unsymbolized. Out of memory loses only the note: resolve cannot fail. */
static void obj_load(struct pmc_maps *m, struct obj *o)
{
	char err[1024] = "";
	char msg[1200];
	int rc;

	if (o->state != OBJ_UNLOADED)
		return;
	if (o->special)
		rc = vdso_load(&o->tab, err, sizeof(err));
	else
		rc = pmc_symtab_load(o->path, &o->tab, err, sizeof(err));
	if (rc == 0) {
		o->state = OBJ_LOADED;
		return;
	}
	o->state = OBJ_FAILED;
	/* err names the file, quoted. */
	snprintf(msg, sizeof(msg), "no symbols: %s", err);
	add_problem(m, msg);
}

/* Reads the kernel's symbols on the first kernel address; why not is noted once. */
static void kernel_load(struct pmc_maps *m)
{
	char why[512] = "";
	char msg[700];

	if (m->kernel_state != OBJ_UNLOADED)
		return;
	if (pmc_kallsyms_load(m->kallsyms_path, &m->kernel, why, sizeof(why)) == 0) {
		m->kernel_state = OBJ_LOADED;
		return;
	}
	m->kernel_state = OBJ_FAILED;
	snprintf(msg, sizeof(msg),
		 "kernel functions are not named, kernel frames are one "
		 "[kernel]: %s",
		 why);
	add_problem(m, msg);
}

void pmc_maps_prepare_kernel(struct pmc_maps *m)
{
	kernel_load(m);
}

static const struct map *map_find(const struct task *t, uint64_t ip)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ip >= t->maps[lo - 1].end)
		return NULL;
	return &t->maps[lo - 1];
}

void pmc_maps_at(struct pmc_maps *m, uint64_t time)
{
	if (m)
		m->time = time;
}

/* The name the jitdump or else the perf map of process pid gives ip, or NULL. */
static const char *jit_name(struct pmc_maps *m, struct task *t, uint32_t pid, uint64_t ip)
{
	const char *name;

	if (t->dump) {
		name = pmc_jitdump_lookup(t->dump, ip, m->time);
		if (!t->dump_noted && pmc_jitdump_problem(t->dump)) {
			t->dump_noted = true;
			add_problem(m, pmc_jitdump_problem(t->dump));
		}
		if (name)
			return name;
	}
	if (!t->jit && pmc_jit_map_new(pid, m->jit_dir, &t->jit) < 0)
		return NULL;
	return pmc_jit_map_lookup(t->jit, ip);
}

void pmc_maps_resolve(struct pmc_maps *m, uint32_t pid, uint64_t ip, bool kernel,
		      struct pmc_resolved *ret)
{
	struct task *t;
	const struct map *mp;
	struct obj *o;
	uint64_t off, vaddr;
	const char *name;

	if (!ret)
		return;
	*ret = (struct pmc_resolved){.object = "[unknown]", .offset = ip, .unmapped = true};
	if (!m)
		return;
	if (kernel) {
		/* By function where /proc/kallsyms is readable, else one "[kernel]": no
		 * offset is kept either way. */
		ret->object = "[kernel]";
		ret->offset = 0;
		ret->unmapped = false;
		kernel_load(m);
		ret->symbol = pmc_kallsyms_lookup(m->kernel, ip);
		return;
	}
	if (!(t = task_find(m, pid)))
		return;
	if (!(mp = map_find(t, ip))) {
		/* JIT code in memory no MMAP record told of: its perf map may name it. */
		if ((ret->symbol = jit_name(m, t, pid, ip))) {
			ret->object = "[anon]";
			ret->offset = 0;
			ret->unmapped = false;
		}
		return;
	}
	ret->unmapped = false;
	o = &m->objs[mp->obj];
	/* The file offset, which the kernel gave as pgoff (MMAP2): the same whatever
	 * address ASLR chose. */
	off = ip - mp->start + mp->pgoff;
	ret->object = o->path;
	ret->offset = off;
	/* Of the pseudo-objects the vdso is code with symbols, and anonymous memory
	 * holds the JIT code a perf map names. */
	if (o->special && !strcmp(o->special, "[anon]") && (ret->symbol = jit_name(m, t, pid, ip)))
		ret->offset = 0;
	if (o->special && strcmp(o->special, "[vdso]") != 0)
		return;
	obj_load(m, o);
	if (o->state != OBJ_LOADED)
		return;
	if (mp->bid_len && !pmc_symtab_build_id_is(o->tab, mp->bid, mp->bid_len)) {
		ret->build_id_mismatch = true;
		if (!o->mismatch_noted) {
			o->mismatch_noted = true;
			char q[PMC_QUOTE_SIZE(256)];
			char msg[1200];

			snprintf(msg, sizeof(msg),
				 "%s: not the file that was mapped (its build-id differs: rebuilt "
				 "since?); its addresses are left unresolved",
				 pmc_quote(q, sizeof(q), o->path));
			add_problem(m, msg);
		}
		return;
	}
	if (pmc_symtab_vaddr(o->tab, off, &vaddr) < 0)
		return;
	ret->offset = vaddr;
	ret->vaddr = vaddr;
	ret->has_vaddr = !o->special;
	if ((name = pmc_symtab_lookup(o->tab, vaddr, NULL))) {
		ret->symbol = name;
		ret->offset = 0;
	}
}

int pmc_maps_find(struct pmc_maps *m, uint32_t pid, uint64_t ip, struct pmc_mapping *ret)
{
	const struct task *t;
	const struct map *mp;
	struct obj *o;
	uint64_t vaddr;

	if (!m || !ret || !(t = task_find(m, pid)) || !(mp = map_find(t, ip)))
		return -ENOENT;
	o = &m->objs[mp->obj];
	*ret = (struct pmc_mapping){.start = mp->start,
				    .end = mp->end,
				    .pgoff = mp->pgoff,
				    .path = o->path,
				    .special = o->special != NULL};
	if (o->special && strcmp(o->special, "[vdso]") != 0)
		return 0;
	/* The same checks as naming: a rebuilt file's headers are not the mapped ones. */
	obj_load(m, o);
	if (o->state != OBJ_LOADED ||
	    (mp->bid_len && !pmc_symtab_build_id_is(o->tab, mp->bid, mp->bid_len)) ||
	    pmc_symtab_vaddr(o->tab, ip - mp->start + mp->pgoff, &vaddr) < 0)
		return 0;
	ret->bias_known = true;
	ret->bias = ip - vaddr;
	return 0;
}

size_t pmc_maps_problem_count(const struct pmc_maps *m)
{
	return m ? m->nproblems : 0;
}

const char *pmc_maps_problem(const struct pmc_maps *m, size_t i)
{
	return m && i < m->nproblems ? m->problems[i] : NULL;
}

/* One line of /proc/PID/maps (proc(5)): "start-end perms offset major:minor inode path",
 * the path absent for anonymous memory. Returns 0, or -EINVAL when the line is not one. */
static int parse_line(char *line, struct map *ret, bool *ret_exec, char **ret_path)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int n = 0;
	char *path, *e;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &off, &maj, &min,
		   &ino, &n) != 7 ||
	    end < start || strlen(perms) != 4)
		return -EINVAL;
	path = line + n;
	while (*path == ' ' || *path == '\t')
		path++;
	e = path + strlen(path);
	while (e > path && (e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	ret->start = start;
	ret->end = end;
	ret->pgoff = off;
	*ret_exec = perms[2] == 'x';
	*ret_path = path;
	return 0;
}

int pmc_maps_load_proc(struct pmc_maps *m, uint32_t pid, const char *proc_root)
{
	char path[4096];
	char *line = NULL;
	size_t cap = 0, nlines = 0, lines_cap = 0;
	struct {
		struct map map;
		char *path;
	} *lines = NULL;
	struct task *t;
	FILE *f;
	int rc = 0;

	if (!m)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", proc_root ? proc_root : "/proc", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* Parse everything first, so that a bad file leaves the maps untouched. */
	while (getline(&line, &cap, f) > 0) {
		struct map mp = {0};
		bool exec;
		char *p;

		if (line[0] == '\n')
			continue;
		if ((rc = parse_line(line, &mp, &exec, &p)) < 0)
			goto out;
		/* Only executable mappings hold sampled addresses; they are also all the
		 * kernel reports in MMAP records (attr.mmap without mmap_data). */
		if (!exec)
			continue;
		if ((rc = pmc_grow_to(&lines, &lines_cap, nlines + 1, sizeof(*lines))) < 0)
			goto out;
		lines[nlines].map = mp;
		lines[nlines].path = strdup(*p ? p : "//anon");
		if (!lines[nlines].path) {
			rc = -ENOMEM;
			goto out;
		}
		nlines++;
	}
	if (ferror(f)) {
		rc = -EIO;
		goto out;
	}
	if ((rc = task_get(m, pid, &t)) < 0)
		goto out;
	t->n = 0;
	for (size_t i = 0; i < nlines && rc == 0; i++)
		rc = add_mapping(m, pid, lines[i].map.start, lines[i].map.end - lines[i].map.start,
				 lines[i].map.pgoff, lines[i].path, NULL, 0);
out:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].path);
	free(lines);
	free(line);
	fclose(f);
	return rc;
}
