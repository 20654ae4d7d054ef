/* DWARF unwinding of sampled user stacks through libdwfl (unwind.h). The pieces are
 * libdwfl's own (libdwfl.h): a Dwfl per process whose modules are reported with
 * dwfl_report_elf() at the load bias the maps give, a state attached with
 * dwfl_attach_state() whose Dwfl_Thread_Callbacks hand libdwfl the sample's registers
 * (set_initial_registers) and its copy of the stack (memory_read), and
 * dwfl_getthread_frames() to walk it. */
#include "profile/unwind.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <asm/perf_regs.h>
#include <linux/perf_event.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "counters/perf/sample.h"
#include "profile/debuginfo.h"
#include "profile/maps.h"

/* One process's libdwfl session. */
struct space {
	char key[16]; /* the pid in decimal: the key of pmc_unwinder.index */
	uint32_t pid;
	Dwfl *dwfl;    /* NULL until a sample of the process, and after its exec or exit */
	bool attached; /* dwfl_attach_state() done */
};

struct pmc_unwinder {
	struct pmc_maps *maps;
	Dwfl_Callbacks callbacks; /* must outlive every Dwfl */
	char *debuginfo_path;	  /* NULL: libdwfl's default, ":.debug:/usr/lib/debug" */
	struct space **spaces;
	size_t nspaces, spaces_cap;
	struct pmc_hashmap index;
	struct pmc_hashmap failed; /* files dwfl_report_elf() refused, by path (maps' text) */
	int vdso_fd;		   /* a copy of this process's vdso image; -1: none yet */
	bool vdso_tried;
	/* The sample being unwound, and its process's session. */
	const struct pmc_record *rec;
	struct space *cur;
	uint64_t sp;
	uint64_t *ips;
	size_t n, cap;
	enum pmc_unwind_end end;
	bool read_above; /* memory_read was asked for a word past the copy's end */
	bool read_other; /* ... for a word below the stack pointer */
};

int pmc_unwinder_new(struct pmc_maps *m, struct pmc_unwinder **ret)
{
	struct pmc_unwinder *u;

	if (!m || !ret)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->maps = m;
	/* Objects are reported with their files and biases (dwfl_report_elf): no find_elf;
	 * separate debug files are searched as gdb does, for .debug_frame (debuginfo.h). */
	u->callbacks.find_debuginfo = pmc_find_debuginfo;
	u->callbacks.debuginfo_path = &u->debuginfo_path;
	u->callbacks.section_address = dwfl_offline_section_address;
	u->vdso_fd = -1;
	*ret = u;
	return 0;
}

static void space_drop(struct space *sp)
{
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	sp->dwfl = NULL;
	sp->attached = false;
}

void pmc_unwinder_free(struct pmc_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nspaces; i++) {
		space_drop(u->spaces[i]);
		free(u->spaces[i]);
	}
	free(u->spaces);
	pmc_hashmap_free(&u->index);
	pmc_hashmap_free(&u->failed);
	if (u->vdso_fd >= 0)
		close(u->vdso_fd);
	free(u);
}

static struct space *space_find(const struct pmc_unwinder *u, uint32_t pid)
{
	char key[16];
	size_t i;

	snprintf(key, sizeof(key), "%" PRIu32, pid);
	return pmc_hashmap_get(&u->index, key, &i) == 0 ? u->spaces[i] : NULL;
}

static int space_get(struct pmc_unwinder *u, uint32_t pid, struct space **ret)
{
	struct space *sp = space_find(u, pid);
	int rc;

	if (!sp) {
		if ((rc = pmc_grow_to(&u->spaces, &u->spaces_cap, u->nspaces + 1,
				      sizeof(*u->spaces))) < 0)
			return rc;
		if (!(sp = calloc(1, sizeof(*sp))))
			return -ENOMEM;
		sp->pid = pid;
		snprintf(sp->key, sizeof(sp->key), "%" PRIu32, pid);
		if ((rc = pmc_hashmap_put(&u->index, sp->key, u->nspaces)) < 0) {
			free(sp);
			return rc;
		}
		u->spaces[u->nspaces++] = sp;
	}
	if (!sp->dwfl && !(sp->dwfl = dwfl_begin(&u->callbacks)))
		return -ENOMEM;
	*ret = sp;
	return 0;
}

void pmc_unwinder_apply(struct pmc_unwinder *u, const struct pmc_record *rec)
{
	struct space *sp;

	if (!u || !rec)
		return;
	/* A new image, a new process (a thread shares its process's), or its end: the
	 * objects reported are no longer the task's. */
	if ((rec->type == PMC_RECORD_COMM && rec->comm.exec) ||
	    (rec->type == PMC_RECORD_FORK && rec->pid != rec->task.ppid) ||
	    (rec->type == PMC_RECORD_EXIT && rec->pid == rec->tid))
		if ((sp = space_find(u, rec->pid)))
			space_drop(sp);
}

/* A copy of this process's vdso in a memory file, for libdwfl, which reads objects from
 * files: the kernel maps one image into every process of an ABI, and the profiled ones are
 * gone (maps.c names [vdso] frames from the same image). Its size is where its section
 * headers end, the last part of the image. */
static int vdso_fd(struct pmc_unwinder *u)
{
	const ElfW(Ehdr) * eh;
	size_t size;
	int fd;

	if (u->vdso_tried)
		return u->vdso_fd;
	u->vdso_tried = true;
	eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return -1;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof(*eh) || size > (1u << 20))
		return -1;
	fd = memfd_create("pmcbench-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, eh, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	u->vdso_fd = fd;
	return fd;
}

/* The module holding addr in sp's session, reported from the task's mapping when it is
 * not yet; NULL when no file can be: then libdwfl has no CFI for addr. */
static Dwfl_Module *module_at(struct pmc_unwinder *u, struct space *sp, uint64_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(sp->dwfl, addr);
	struct pmc_mapping mp;
	int fd = -1;

	if (mod)
		return mod;
	if (pmc_maps_find(u->maps, sp->pid, addr, &mp) < 0 || !mp.bias_known ||
	    pmc_hashmap_has(&u->failed, mp.path))
		return NULL;
	if (mp.special) {
		if (strcmp(mp.path, "[vdso]") != 0 || vdso_fd(u) < 0 || (fd = dup(u->vdso_fd)) < 0)
			return NULL;
	}
	dwfl_report_begin_add(sp->dwfl);
	/* add_p_vaddr: base is the bias itself (ELF address + bias = address). The fd, when
	 * given, is the library's on success. */
	mod = dwfl_report_elf(sp->dwfl, mp.path, mp.path, fd, mp.bias, true);
	dwfl_report_end(sp->dwfl, NULL, NULL);
	if (!mod) {
		if (fd >= 0)
			close(fd);
		/* Not tried again for every sample (out of memory loses only that). */
		pmc_hashmap_put(&u->failed, mp.path, 0);
	}
	return mod;
}

/* Whether the CFI of addr's object describes addr's frame. libdwfl falls back to a
 * frame-pointer walk where it finds none (x86_64_unwind), which on code without frame
 * pointers reads data as return addresses: the walk stops there instead. */
static bool has_cfi(Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr;

	if ((cfi = dwfl_module_eh_cfi(mod, &bias)) &&
	    dwarf_cfi_addrframe(cfi, addr - bias, &fr) == 0) {
		free(fr);
		return true;
	}
	if ((cfi = dwfl_module_dwarf_cfi(mod, &bias)) &&
	    dwarf_cfi_addrframe(cfi, addr - bias, &fr) == 0) {
		free(fr);
		return true;
	}
	return false;
}

/* The sample's value of a register (asm/perf_regs.h number): regs hold one per bit of the
 * mask, lowest bit first. */
static bool reg(const struct pmc_record *rec, unsigned r, uint64_t *ret)
{
	uint64_t mask = rec->sample.regs_mask;
	unsigned i;

	if (r >= 64 || !(mask & (1ULL << r)))
		return false;
	i = (unsigned)__builtin_popcountll(mask & ((1ULL << r) - 1));
	if (i >= rec->sample.nregs)
		return false;
	*ret = rec->sample.regs[i];
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct pmc_unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return (pid_t)u->rec->tid;
}

/* The thread asked for is the sample's. */
static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the task's memory: only the copy of its stack is known. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct pmc_unwinder *u = arg;
	uint64_t n = u->rec->sample.stack_dyn_size;

	(void)dwfl;
	if (addr >= u->sp && addr - u->sp < n && n - (addr - u->sp) >= sizeof(*result)) {
		memcpy(result, u->rec->sample.stack + (addr - u->sp), sizeof(*result));
		return true;
	}
	if (addr >= u->sp)
		u->read_above = true;
	else
		u->read_other = true;
	return false;
}

#if defined(__aarch64__)
/* AArch64's DWARF register numbers (DWARF for the Arm 64-bit Architecture, "DWARF
 * register names"): x0-x30 are 0-30 and sp 31, as perf numbers them (asm/perf_regs.h);
 * the pc has no DWARF number and is handed over apart (as elfutils' aarch64 backend does). */
#define UNWIND_REG_SP PERF_REG_ARM64_SP
#define UNWIND_REG_PC PERF_REG_ARM64_PC
#define UNWIND_NREGS 32
static unsigned dwarf_to_perf(unsigned i)
{
	return i;
}
#else
/* The x86-64 psABI's DWARF register numbers (figure 3.36): rax, rdx, rcx, rbx, rsi, rdi,
 * rbp, rsp, r8-r15, then 16, the return address, which libdwfl takes for the pc. */
#define UNWIND_REG_SP PERF_REG_X86_SP
#define UNWIND_REG_PC PERF_REG_X86_IP
#define UNWIND_NREGS 17
static unsigned dwarf_to_perf(unsigned i)
{
	static const unsigned perf[UNWIND_NREGS] = {
	    PERF_REG_X86_AX,  PERF_REG_X86_DX,	PERF_REG_X86_CX,  PERF_REG_X86_BX,
	    PERF_REG_X86_SI,  PERF_REG_X86_DI,	PERF_REG_X86_BP,  PERF_REG_X86_SP,
	    PERF_REG_X86_R8,  PERF_REG_X86_R9,	PERF_REG_X86_R10, PERF_REG_X86_R11,
	    PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
	    PERF_REG_X86_IP,
	};
	return perf[i];
}
#endif

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct pmc_unwinder *u = arg;
	Dwarf_Word regs[UNWIND_NREGS];

	for (unsigned i = 0; i < UNWIND_NREGS; i++)
		if (!reg(u->rec, dwarf_to_perf(i), &regs[i]))
			return false;
	if (!dwfl_thread_state_registers(thread, 0, UNWIND_NREGS, regs))
		return false;
#if defined(__aarch64__)
	{
		uint64_t pc;

		if (!reg(u->rec, UNWIND_REG_PC, &pc))
			return false;
		dwfl_thread_state_register_pc(thread, pc);
	}
#endif
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* One frame: its pc is kept; the walk goes on only where CFI describes the frame. */
static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pmc_unwinder *u = arg;
	Dwfl_Module *mod;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL)) {
		u->end = PMC_UNWIND_BAD_STACK;
		return DWARF_CB_ABORT;
	}
	if (u->n == u->cap) {
		u->end = PMC_UNWIND_MAX_DEPTH;
		return DWARF_CB_ABORT;
	}
	u->ips[u->n++] = pc;
	/* A caller's pc is a return address: its call is the byte before, which may be the
	 * end of another function (a call to a function that does not return). */
	pc -= u->n > 1;
	if (!(mod = module_at(u, u->cur, pc)) || !has_cfi(mod, pc)) {
		u->end = PMC_UNWIND_NO_CFI;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int pmc_unwind_sample(struct pmc_unwinder *u, const struct pmc_record *rec, uint64_t *ips,
		      size_t cap, size_t *ret_n, enum pmc_unwind_end *ret_end)
{
	struct space *sp;
	uint64_t ip;
	int rc;

	if (!u || !rec || rec->type != PMC_RECORD_SAMPLE || !ips || !ret_n || !ret_end)
		return -EINVAL;
	*ret_n = 0;
	*ret_end = PMC_UNWIND_NO_REGS;
	if (rec->sample.regs_abi != PERF_SAMPLE_REGS_ABI_64 || !reg(rec, UNWIND_REG_SP, &u->sp) ||
	    !reg(rec, UNWIND_REG_PC, &ip) || cap == 0)
		return 0;
	if ((rc = space_get(u, rec->pid, &sp)) < 0)
		return rc;
	u->rec = rec;
	u->cur = sp;
	u->ips = ips;
	u->cap = cap;
	u->n = 0;
	u->end = PMC_UNWIND_WHOLE;
	u->read_above = u->read_other = false;
	/* libdwfl learns the architecture from a module: the leaf's is the first. */
	if (!module_at(u, sp, ip) ||
	    (!sp->attached && !(sp->attached = dwfl_attach_state(sp->dwfl, NULL, (pid_t)rec->pid,
								 &thread_callbacks, u)))) {
		ips[0] = ip;
		*ret_n = 1;
		*ret_end = PMC_UNWIND_NO_CFI;
		return 0;
	}
	rc = dwfl_getthread_frames(sp->dwfl, (pid_t)rec->tid, frame_cb, u);
	/* libdwfl takes a return address it cannot read for the end of the stack (and
	 * returns 0, as at the outermost frame, whose CFI leaves it undefined): a word
	 * missing from the copy means the walk stopped short, whatever it returned. A copy
	 * as long as was set aside may have been cut by its size; a shorter one held the
	 * whole stack, and the CFI led past it. */
	if (u->end == PMC_UNWIND_WHOLE && (rc == -1 || u->read_above || u->read_other)) {
		if (u->read_above && rec->sample.stack_dyn_size >= rec->sample.stack_size)
			u->end = PMC_UNWIND_STACK_SHORT;
		else
			u->end = PMC_UNWIND_BAD_STACK;
	}
	if (u->n == 0) {
		ips[0] = ip;
		u->n = 1;
	}
	*ret_n = u->n;
	*ret_end = u->end;
	u->rec = NULL;
	u->cur = NULL;
	return 0;
}
