/* Growing an array one entry at a time in amortised constant time. */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for entry n of the array *arrp (a T ** passed as void *) of n entries of
 * size bytes. The array must be grown by nothing else, from NULL with n == 0: its
 * capacity is then implied by n, 8 entries and doubling (8, 16, 32, ...), so it is
 * reallocated only when n reaches 0, 8, 16, 32, ... and n appends copy O(n) entries
 * rather than the O(n^2) of growing by one. Returns 0, or -ENOMEM with *arrp unchanged. */
static inline int pmc_grow(void *arrp, size_t n, size_t size)
{
	void *arr, *grown;
	size_t cap;

	if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
		return 0;
	cap = n ? 2 * n : 8;
	if (cap < n || cap > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr));
	grown = realloc(arr, cap * size);
	if (!grown)
		return -ENOMEM;
	memcpy(arrp, &grown, sizeof(grown));
	return 0;
}

/* Makes room for at least need entries of size bytes in the array *arrp (a T ** passed
 * as void *) with room for *cap entries now (0 for a NULL array): the room doubles, from
 * 16, so that growing to n entries copies O(n) of them. For arrays whose room is kept
 * beside them, and grown by more than one entry at a time. Returns 0, or -ENOMEM with
 * *arrp and *cap unchanged. */
static inline int pmc_grow_to(void *arrp, size_t *cap, size_t need, size_t size)
{
	void *arr, *grown;
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr));
	grown = realloc(arr, c * size);
	if (!grown)
		return -ENOMEM;
	memcpy(arrp, &grown, sizeof(grown));
	*cap = c;
	return 0;
}
