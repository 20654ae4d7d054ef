/* SHA-256 (FIPS 180-4), for the content hash that makes ingest idempotent: the same
 * result added twice has one key (docs/history.md, "Idempotent ingest"). */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

void pmc_sha256_init(struct pmc_sha256 *s);
void pmc_sha256_update(struct pmc_sha256 *s, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL in hex (65 bytes). */
void pmc_sha256_hex(struct pmc_sha256 *s, char hex[65]);
