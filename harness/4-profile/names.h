/* One name for one function whichever backend saw it (docs/profile.md, "Names"). The
 * sampler reads symbols as the files spell them (C++ names mangled, symbol versions in
 * .dynsym names), valgrind prints them demangled and versioned, and the two see
 * different parts of the C library's code that runs main: every symbol goes through
 * pmc_profile_symbol_name() as it enters a profile (pmc_profile_frame_id), so that
 * `report --diff sampled.json exact.json` matches functions and stacks. */
#pragma once

#include <stdbool.h>

/* The one root of whatever ran main, valgrind's name for it. */
#define PMC_PROFILE_BELOW_MAIN "(below main)"

/* The name a profile gives symbol sym: without a symbol version ("memcpy@@GLIBC_2.14",
 * "@GLIBC_2.2.5"; not "@plt", which is other code), a C++ name (the Itanium C++ ABI's
 * "_Z..." mangling) demangled with its parameters, as valgrind writes it
 * ("shapes::Mixer::spin(unsigned long)"), and the functions that run main (crt's _start,
 * glibc's __libc_start_main and __libc_start_call_main, generic_start_main) as
 * PMC_PROFILE_BELOW_MAIN. *ret is a new string, or NULL when sym is already that name.
 * Returns 0 or -ENOMEM. */
int pmc_profile_symbol_name(const char *sym, char **ret);

/* Whether name (a profile's name, as pmc_profile_symbol_name gives it) is where a task's
 * stack starts: whatever runs main (PMC_PROFILE_BELOW_MAIN), main itself, or a thread's
 * start routine (glibc's start_thread under clone3 or clone, musl's thread_start). A
 * stack whose outermost user frame is none of them was cut (docs/profile.md, "Call
 * chains"). */
bool pmc_profile_entry_point(const char *name);
