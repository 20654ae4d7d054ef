/* The change of an amount estimated from sampled counts (docs/profile.md, "The diff"):
 * a function's time in a cpu-clock profile is its samples times the time each one
 * stands for, so two profiles' times of a function differ by more than sampling noise
 * only when their samples do. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct pmc_count_change {
	double change; /* new_amount - old_amount */
	double lo, hi; /* its interval at the confidence asked */
	bool clear;    /* the interval excludes 0: a change beyond sampling error */
};

/* The change from old_amount, estimated from k0 samples each worth old_per (the amount
 * over the samples), to new_amount from k1 worth new_per. The samples are Poisson
 * counts; given n = k0 + k1, k1 is binomial(n, pi), and the amount did not change when
 * pi = old_per / (old_per + new_per) (the conditional test of two Poisson counts,
 * Przyborowski and Wilenski 1940). pi has Wilson's score interval (Wilson 1927), n the
 * Poisson score interval, each at sqrt(confidence), so that together they cover the
 * change at confidence or more; clear exactly when the conditional test rejects "no
 * change". Returns 0, or -EINVAL for a per-sample worth that is not positive and finite,
 * or a confidence outside (0, 1). */
int pmc_count_change(double old_amount, uint64_t k0, double old_per, double new_amount, uint64_t k1,
		     double new_per, double confidence, struct pmc_count_change *ret);
