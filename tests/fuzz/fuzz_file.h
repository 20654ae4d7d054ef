/* Shared by the fuzz targets whose parser reads a path: one temporary file per process,
 * rewritten with each input. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The path of a temporary file now holding the n bytes of data; NULL when it cannot be
 * written (the input is then skipped). */
const char *fuzz_file(const uint8_t *data, size_t n, const char *suffix);

/* The path name in a temporary directory of this process (made once, removed at exit with
 * the file), for a parser that looks a file up by its name (perf-PID.map, jit-PID.dump);
 * NULL when it cannot be made. */
const char *fuzz_dir_file(const char *name);

/* Writes (mode "we") or appends ("ae") the n bytes of data to path: a file that grows as
 * its writer's does. Returns 0 or -1. */
int fuzz_write(const char *path, const char *mode, const uint8_t *data, size_t n);

/* Calls fn with the hexadecimal address each of the first max lines of data starts with
 * (0 where none), as many parsers of "ADDRESS ..." lines take them. */
void fuzz_line_addresses(const uint8_t *data, size_t n, int max,
			 void (*fn)(unsigned long long addr, void *ud), void *ud);
