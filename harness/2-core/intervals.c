/* Counts per interval from cumulative readings (intervals.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "core/intervals.h"

void pmc_intervals_free(struct pmc_intervals *iv)
{
	if (!iv)
		return;
	for (size_t i = 0; iv->ids && i < iv->nids; i++)
		free(iv->ids[i]);
	free(iv->ids);
	free(iv->end_ns);
	free(iv->delta);
	free(iv->last);
	free(iv);
}

int pmc_intervals_new(const char *const *ids, size_t nids, struct pmc_intervals **ret)
{
	struct pmc_intervals *iv;

	if (!ids || !nids)
		return -EINVAL;
	iv = calloc(1, sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	iv->ids = calloc(nids, sizeof(*iv->ids));
	iv->last = calloc(nids, sizeof(*iv->last));
	if (!iv->ids || !iv->last)
		goto fail_memory;
	iv->nids = nids;
	for (size_t i = 0; i < nids; i++)
		if (!(iv->ids[i] = strdup(ids[i])))
			goto fail_memory;
	*ret = iv;
	return 0;
fail_memory:
	pmc_intervals_free(iv);
	return -ENOMEM;
}

/* One metric's count between two cumulative readings (intervals.h). */
static int delta(const struct pmc_reading *from, const struct pmc_reading *to, double *ret)
{
	uint64_t dv, de, dr;

	if (!pmc_status_has_value(to->status)) {
		*ret = NAN;
		return 0;
	}
	if (to->value < from->value || to->enabled < from->enabled || to->running < from->running)
		return -EINVAL;
	dv = to->value - from->value;
	de = to->enabled - from->enabled;
	dr = to->running - from->running;
	if (dr == 0)
		*ret = de == 0 && dv == 0 ? 0.0 : NAN;
	else if (dr >= de)
		*ret = (double)dv;
	else
		*ret = pmc_reading_scale(dv, de, dr);
	return 0;
}

int pmc_intervals_add(struct pmc_intervals *iv, uint64_t end_ns, const struct pmc_reading *cum)
{
	double *row;
	int r;

	if (iv->n && end_ns <= iv->end_ns[iv->n - 1])
		return -EINVAL;
	if (pmc_grow(&iv->end_ns, iv->n, sizeof(*iv->end_ns)) < 0 ||
	    pmc_grow(&iv->delta, iv->n, iv->nids * sizeof(*iv->delta)) < 0)
		return -ENOMEM;
	row = &iv->delta[iv->n * iv->nids];
	for (size_t i = 0; i < iv->nids; i++) {
		/* A metric without a value keeps the last reading that had one. */
		if ((r = delta(&iv->last[i], &cum[i], &row[i])) < 0)
			return r;
	}
	for (size_t i = 0; i < iv->nids; i++)
		if (pmc_status_has_value(cum[i].status))
			iv->last[i] = cum[i];
	iv->end_ns[iv->n++] = end_ns;
	return 0;
}
