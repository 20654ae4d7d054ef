/* The change of an amount estimated from sampled counts (counts.h). */
#include <errno.h>
#include <math.h>

#include "core/counts.h"
#include "core/stats.h"

/* Wilson's score interval of a binomial proportion, k of n at normal quantile z
 * (Wilson 1927): inside [0, 1] and sound near 0 and 1. */
static void wilson(double k, double n, double z, double *lo, double *hi)
{
	double p = k / n, z2 = z * z, c = (p + z2 / (2 * n)) / (1 + z2 / n);
	double h = z / (1 + z2 / n) * sqrt(p * (1 - p) / n + z2 / (4 * n * n));

	*lo = fmax(0.0, c - h);
	*hi = fmin(1.0, c + h);
}

/* The new side's share of the amount when its share of the samples is pi. */
static double amount_share(double pi, double old_per, double new_per)
{
	return pi * new_per / (pi * new_per + (1 - pi) * old_per);
}

int pmc_count_change(double old_amount, uint64_t k0, double old_per, double new_amount, uint64_t k1,
		     double new_per, double confidence, struct pmc_count_change *ret)
{
	double n = (double)k0 + (double)k1, z, pi_lo, pi_hi, a, b, sum, s_lo, s_hi, root;

	if (!ret || !(old_per > 0) || !(new_per > 0) || !isfinite(old_per) || !isfinite(new_per) ||
	    !(confidence > 0 && confidence < 1))
		return -EINVAL;
	ret->change = new_amount - old_amount;
	ret->lo = ret->hi = ret->change;
	ret->clear = false;
	if (n == 0)
		return 0;
	/* Two intervals at sqrt(confidence) each: the split's holds given n whatever n is,
	 * so both hold together with probability confidence or more. */
	z = pmc_normal_quantile(1 - (1 - sqrt(confidence)) / 2);
	wilson((double)k1, n, z, &pi_lo, &pi_hi);
	/* The change is the sum times (2 s - 1), s the new side's share of the amount. */
	a = 2 * amount_share(pi_lo, old_per, new_per) - 1;
	b = 2 * amount_share(pi_hi, old_per, new_per) - 1;
	sum = old_amount + new_amount;
	/* The Poisson score interval of n (the sum's samples), scaling the sum. */
	root = z * sqrt(n + z * z / 4);
	s_lo = sum * (n + z * z / 2 - root) / n;
	s_hi = sum * (n + z * z / 2 + root) / n;
	ret->lo = a * (a < 0 ? s_hi : s_lo);
	ret->hi = b * (b > 0 ? s_hi : s_lo);
	ret->clear = ret->lo > 0 || ret->hi < 0;
	return 0;
}
