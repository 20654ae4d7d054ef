/* The environment fingerprint stored with every result. */
#pragma once

#include <stddef.h>

struct pmc_result;

/* Fills r's environment: kernel, cpu-model, pmus, perf_event_paranoid, nmi-watchdog,
 * governor, smt, aslr, hypervisor, cpus, hostname. Keys that cannot be read are left
 * out. Returns 0 or -ENOMEM. */
int pmc_env_collect(struct pmc_result *r);
