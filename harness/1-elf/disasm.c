/* Disassembly through Capstone (disasm.h); without it, the build's answer is -ENOSYS. */
#include "elf/disasm.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PMC_HAVE_CAPSTONE
#include <capstone/capstone.h>

#include "base/grow.h"

bool pmc_disasm_available(void)
{
	return true;
}

static int open_handle(uint16_t machine, csh *ret)
{
	cs_arch arch;
	cs_mode mode;

	switch (machine) {
	case EM_X86_64:
		arch = CS_ARCH_X86;
		mode = CS_MODE_64;
		break;
	case EM_AARCH64:
		arch = CS_ARCH_ARM64;
		mode = CS_MODE_ARM;
		break;
	default:
		return -EPROTONOSUPPORT;
	}
	if (cs_open(arch, mode, ret) != CS_ERR_OK)
		return -ENOMEM;
	/* AT&T, as objdump and perf annotate show x86 code. */
	if (machine == EM_X86_64)
		cs_option(*ret, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	/* Data among the code (a jump table, padding) is kept as ".byte" and skipped. */
	cs_option(*ret, CS_OPT_SKIPDATA, CS_OPT_ON);
	return 0;
}

int pmc_disasm(uint16_t machine, const uint8_t *code, size_t size, uint64_t address,
	       struct pmc_insn **ret, size_t *ret_n)
{
	struct pmc_insn *out = NULL;
	size_t n = 0, cap = 0;
	cs_insn *insn = NULL;
	csh h;
	int rc = open_handle(machine, &h);

	if (rc < 0)
		return rc;
	rc = -ENOMEM;
	if (!(insn = cs_malloc(h)))
		goto out;
	while (size > 0 && cs_disasm_iter(h, &code, &size, &address, insn)) {
		struct pmc_insn *o;

		if (pmc_grow_to(&out, &cap, n + 1, sizeof(*out)) < 0)
			goto out;
		o = &out[n++];
		o->address = insn->address;
		o->size = (uint8_t)insn->size;
		memcpy(o->bytes, insn->bytes, insn->size < 16 ? insn->size : 16);
		snprintf(o->text, sizeof(o->text), "%s%s%s", insn->mnemonic,
			 insn->op_str[0] ? " " : "", insn->op_str);
	}
	*ret = out;
	*ret_n = n;
	out = NULL;
	rc = 0;
out:
	free(out);
	if (insn)
		cs_free(insn, 1);
	cs_close(&h);
	return rc;
}

#else

bool pmc_disasm_available(void)
{
	return false;
}

int pmc_disasm(uint16_t machine, const uint8_t *code, size_t size, uint64_t address,
	       struct pmc_insn **ret, size_t *ret_n)
{
	(void)machine, (void)code, (void)size, (void)address, (void)ret, (void)ret_n;
	return -ENOSYS;
}

#endif
