/* The exact profile of a marked run (marked.h): one row per format of the backends'
 * dumps, with the wrapper's arguments and the reader of its files. */
#include <errno.h>
#include <stdlib.h>

#include "base/error.h"
#include "counters/backend.h"
#include "profile/callgrind.h"
#include "profile/marked.h"

struct dump_reader {
	const char *const *(*args)(void);
	int (*read)(const char *const *files, size_t n, const char *event, const char *name,
		    struct pmc_profile **ret, char *err, size_t errlen);
	const char *event; /* the reader's name of the instructions executed */
};

static const struct dump_reader readers[] = {
    [PMC_DUMP_CALLGRIND] = {pmc_callgrind_profile_args, pmc_callgrind_profile, "Ir"},
};

/* The reader of be's dumps, or NULL. */
static const struct dump_reader *reader_of(const struct pmc_backend_ops *be)
{
	size_t f = (size_t)be->dump_format;

	return f < sizeof(readers) / sizeof(readers[0]) && readers[f].read ? &readers[f] : NULL;
}

const char *const *pmc_profile_marked_args(const struct pmc_backend_ops *be)
{
	const struct dump_reader *rd = reader_of(be);

	return rd ? rd->args() : NULL;
}

int pmc_profile_marked(const struct pmc_backend_ops *be, const struct pmc_backend_run *run,
		       size_t k, const char *name, struct pmc_profile **ret, char *err,
		       size_t errlen)
{
	const struct dump_reader *rd = reader_of(be);
	char *path = NULL;
	int r;

	if (!rd) {
		pmc_err_set(err, errlen, "the %s backend's dumps have no exact profile", be->name);
		return -EOPNOTSUPP;
	}
	r = be->run_dump_file(run, k, &path);
	if (r < 0)
		return r;
	r = rd->read((const char *const *)&path, 1, rd->event, name, ret, err, errlen);
	free(path);
	return r;
}
