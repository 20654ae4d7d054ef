/* Seeded noise for the tests of change points: the same values on every run and machine
 * (a 64-bit linear congruential generator with Knuth's MMIX constants, and Box-Muller's
 * normal deviates). */
#pragma once

#include <math.h>
#include <stddef.h>
#include <stdint.h>

struct noise {
	uint64_t s;
};

/* Uniform on (0, 1). */
static inline double uniform(struct noise *n)
{
	n->s = n->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(n->s >> 11) + 0.5) / 9007199254740992.0;
}

static inline double gauss(struct noise *n)
{
	double u = uniform(n), v = uniform(n);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* x[i] = level * (1 + cv * N(0, 1)) for i in [from, to). */
static inline void fill(double *x, size_t from, size_t to, double level, double cv, struct noise *n)
{
	for (size_t i = from; i < to; i++)
		x[i] = level * (1 + cv * gauss(n));
}
