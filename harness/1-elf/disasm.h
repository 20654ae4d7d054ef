/* Machine code to instructions (docs/profile.md, "Instructions"), through Capstone when
 * the build has it (meson's -Dcapstone): x86-64 in AT&T syntax, as objdump and perf
 * annotate print it, and AArch64. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMC_INSN_TEXT 200 /* Capstone: a 32-byte mnemonic, 160 of operands */

struct pmc_insn {
	uint64_t address;
	uint8_t size;		  /* bytes */
	uint8_t bytes[16];	  /* the first min(size, 16) */
	char text[PMC_INSN_TEXT]; /* "mnemonic operands"; bytes that are no instruction:
				   * ".byte 0x.." */
};

/* Whether this build can disassemble: it was built with Capstone (pmc_disasm_built) and
 * the library could be loaded, which the first call tries (pmc_disasm_error says why
 * not: dlopen's words, or that the build has none). */
bool pmc_disasm_built(void);
bool pmc_disasm_available(void);
const char *pmc_disasm_error(void); /* NULL once loaded */

/* The instructions of size bytes of code for e_machine machine, the first at address,
 * into *ret (*ret_n of them; free() the array). Bytes that decode to no instruction
 * are one ".byte" entry each, and decoding goes on after them. Returns 0; -ENOSYS when
 * the build has no disassembler or it cannot be loaded; -EPROTONOSUPPORT for a machine
 * other than x86-64 and AArch64; -ENOMEM. */
int pmc_disasm(uint16_t machine, const uint8_t *code, size_t size, uint64_t address,
	       struct pmc_insn **ret, size_t *ret_n);
