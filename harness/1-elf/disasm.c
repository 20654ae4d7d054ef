/* Disassembly through Capstone (disasm.h); without it, the build's answer is -ENOSYS.
 *
 * Capstone is loaded (dlopen) when code is first disassembled, not linked: its tables
 * carry some 77,000 relocations, which cost every start of pmcbench, and of every
 * benchmark program, about 1 ms of CPU when linked (issue 37, bench/README.md), for an
 * annotation that few runs make. */
#include "elf/disasm.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PMC_HAVE_CAPSTONE
#include <capstone/capstone.h>
#include <pthread.h>

#include "base/dl.h"
#include "base/grow.h"

/* The functions of Capstone called here, looked up once by name. */
#define CS_FUNCS(X)                                                                                \
	X(cs_open)                                                                                 \
	X(cs_option)                                                                               \
	X(cs_malloc)                                                                               \
	X(cs_disasm_iter)                                                                          \
	X(cs_free)                                                                                 \
	X(cs_close)

static struct {
#define CS_FIELD(f) __typeof__(&f) f;
	CS_FUNCS(CS_FIELD)
#undef CS_FIELD
} cs;

/* What loading Capstone came to: 0, or -ENOENT with its reason in cs_error. Loaded once
 * per process and never unloaded, as a linked library would be. */
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;
static int cs_loaded;
static char cs_error[256];

/* PMC_CAPSTONE_SONAME: the soname of the Capstone built against (meson.build). */
static void cs_load(void)
{
#define CS_SLOT(f) (void **)&cs.f,
	static const char *const names[] = {CS_FUNCS(PMC_DL_NAME)};
	void **const slots[] = {CS_FUNCS(CS_SLOT)};
#undef CS_SLOT

	cs_loaded = pmc_dl_load(PMC_CAPSTONE_SONAME, names, slots, sizeof(names) / sizeof(*names),
				cs_error, sizeof(cs_error));
}

bool pmc_disasm_built(void)
{
	return true;
}

bool pmc_disasm_available(void)
{
	pthread_once(&cs_once, cs_load);
	return cs_loaded == 0;
}

const char *pmc_disasm_error(void)
{
	pthread_once(&cs_once, cs_load);
	return cs_loaded == 0 ? NULL : cs_error;
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
	if (cs.cs_open(arch, mode, ret) != CS_ERR_OK)
		return -ENOMEM;
	/* AT&T, as objdump and perf annotate show x86 code. */
	if (machine == EM_X86_64)
		cs.cs_option(*ret, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	/* Data among the code (a jump table, padding) is kept as ".byte" and skipped. */
	cs.cs_option(*ret, CS_OPT_SKIPDATA, CS_OPT_ON);
	return 0;
}

int pmc_disasm(uint16_t machine, const uint8_t *code, size_t size, uint64_t address,
	       struct pmc_insn **ret, size_t *ret_n)
{
	struct pmc_insn *out = NULL;
	size_t n = 0, cap = 0;
	cs_insn *insn = NULL;
	csh h;
	int rc;

	if (!pmc_disasm_available())
		return -ENOSYS;
	rc = open_handle(machine, &h);
	if (rc < 0)
		return rc;
	rc = -ENOMEM;
	if (!(insn = cs.cs_malloc(h)))
		goto out;
	while (size > 0 && cs.cs_disasm_iter(h, &code, &size, &address, insn)) {
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
		cs.cs_free(insn, 1);
	cs.cs_close(&h);
	return rc;
}

#else

bool pmc_disasm_built(void)
{
	return false;
}

bool pmc_disasm_available(void)
{
	return false;
}

const char *pmc_disasm_error(void)
{
	return "this build has no Capstone";
}

int pmc_disasm(uint16_t machine, const uint8_t *code, size_t size, uint64_t address,
	       struct pmc_insn **ret, size_t *ret_n)
{
	(void)machine, (void)code, (void)size, (void)address, (void)ret, (void)ret_n;
	return -ENOSYS;
}

#endif
