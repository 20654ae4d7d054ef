/* Shared by the fuzz targets whose parser reads a path: one temporary file per process,
 * rewritten with each input. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The path of a temporary file now holding the n bytes of data; NULL when it cannot be
 * written (the input is then skipped). */
const char *fuzz_file(const uint8_t *data, size_t n, const char *suffix);
