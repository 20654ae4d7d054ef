/* pmcbench-alloc: the allocation counter a benchmark program opts into by linking it
 * (docs/microbench.md, "Allocations"), as Google Benchmark's RegisterMemoryManager and
 * Go's -benchmem. It interposes the C library's allocating functions, forwards each to
 * glibc's own (__libc_malloc and its kin, which glibc exports for such wrappers), counts
 * the calls that succeeded and the bytes they asked for in counters of the calling
 * thread, and registers the function that reads them with libpmcbench. A thread's
 * counters are its own: no lock, no atomic, nothing shared between threads. A program
 * that does not link it pays nothing. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <malloc.h>

#include <pmcbench.h>

/* A sanitizer has an allocator of its own, which must see every block: built with one,
 * the library interposes nothing and registers nothing (no allocation is reported). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PMC_ALLOC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define PMC_ALLOC_SANITIZED 1
#endif
#endif

#ifdef PMC_ALLOC_SANITIZED
/* A translation unit may not be empty. */
extern int pmc_alloc_sanitized_build;
#else

#define PUBLIC __attribute__((visibility("default")))

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t size);

/* initial-exec: an access never allocates (a dynamic TLS block would, from inside
 * malloc); the library is loaded with the program, never by dlopen. */
static __thread uint64_t allocs __attribute__((tls_model("initial-exec")));
static __thread uint64_t bytes __attribute__((tls_model("initial-exec")));

static void *counted(void *p, size_t size)
{
	if (p) {
		allocs++;
		bytes += size;
	}
	return p;
}

PUBLIC void *malloc(size_t size)
{
	return counted(__libc_malloc(size), size);
}

PUBLIC void *calloc(size_t n, size_t size)
{
	/* A product that overflows fails in glibc: nothing is counted then. */
	return counted(__libc_calloc(n, size), n * size);
}

PUBLIC void *realloc(void *p, size_t size)
{
	/* realloc(p, 0) frees p and returns NULL: no allocation. */
	return counted(__libc_realloc(p, size), size);
}

PUBLIC void free(void *p)
{
	__libc_free(p);
}

PUBLIC void *memalign(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size), size);
}

PUBLIC void *aligned_alloc(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size), size);
}

PUBLIC int posix_memalign(void **ret, size_t align, size_t size)
{
	void *p;

	/* A power of two and a multiple of sizeof(void *), as POSIX asks. */
	if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0 || align == 0)
		return EINVAL;
	p = counted(__libc_memalign(align, size), size);
	if (!p)
		return ENOMEM;
	*ret = p;
	return 0;
}

static void read_counts(uint64_t *ret_allocs, uint64_t *ret_bytes)
{
	*ret_allocs = allocs;
	*ret_bytes = bytes;
}

/* Registered only when these functions are the ones the program calls: under a
 * sanitizer, or another allocator linked ahead of this library, they are not, and a
 * count of 0 would be a number that was never measured. */
__attribute__((constructor)) static void register_counter(void)
{
	void *(*volatile m)(size_t) = malloc;
	uint64_t before = allocs;
	void *p = m(1);

	free(p);
	if (p && allocs == before + 1)
		pmc_register_memory_manager(read_counts);
}
#endif /* PMC_ALLOC_SANITIZED */
