/* The SHA-256 that names history entries (harness/3-history/sha256.c) gives the digests
 * of FIPS 180-2's known answers (its appendix B: "abc", the 448-bit message, a million
 * 'a'), whatever pieces the message is fed in, and at the lengths where the padding
 * takes one block or two (55, 56 and 64 bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "history/sha256.h"

/* The digest of n bytes of msg fed in pieces of at most step bytes. */
static void digest(const void *msg, size_t n, size_t step, char hex[65])
{
	const unsigned char *p = msg;
	struct pmc_sha256 s;

	pmc_sha256_init(&s);
	for (size_t off = 0; off < n; off += step)
		pmc_sha256_update(&s, p + off, n - off < step ? n - off : step);
	pmc_sha256_hex(&s, hex);
}

static void abc_is_fips_b1(void **state)
{
	char hex[65];

	digest("abc", 3, 3, hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	digest("abc", 3, 1, hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void two_block_message_is_fips_b2(void **state)
{
	static const char msg[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[65];

	assert_int_equal(strlen(msg) * 8, 448);
	for (size_t step = 1; step <= sizeof(msg); step += 7) {
		digest(msg, strlen(msg), step, hex);
		assert_string_equal(
		    hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	}
}

static void million_a_is_fips_b3(void **state)
{
	const size_t n = 1000000;
	char *a = malloc(n), hex[65];

	assert_non_null(a);
	memset(a, 'a', n);
	digest(a, n, n, hex);
	assert_string_equal(hex,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* Pieces that never line up with the 64-byte blocks. */
	digest(a, n, 997, hex);
	assert_string_equal(hex,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

static void padding_boundaries(void **state)
{
	static const struct {
		size_t n;
		const char *hex;
	} cases[] = {
	    {0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	    {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
	    {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
	    {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
	};
	char a[64], hex[65];

	memset(a, 'a', sizeof(a));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		digest(a, cases[i].n, 64, hex);
		assert_string_equal(hex, cases[i].hex);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(abc_is_fips_b1),
	    cmocka_unit_test(two_block_message_is_fips_b2),
	    cmocka_unit_test(million_a_is_fips_b3),
	    cmocka_unit_test(padding_boundaries),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
