/*
 * Counts heap allocations for `multitouchctl bench --frame-path` (docs/PERFORMANCE.md, "A hot path
 * that allocates nothing"; checks/bench/allocations.sh builds and preloads it):
 *
 *   cc -shared -fPIC -O2 -o malloc-count.so checks/bench/malloc-count.c
 *   LD_PRELOAD=./malloc-count.so multitouchctl bench --frame-path ...
 *
 * Every call that can take memory from the heap (malloc, calloc, realloc, the aligned ones; free is
 * not counted) adds one to a process-wide counter, then goes to glibc's own allocator through its
 * exported __libc_* entry points (no dlsym, which itself allocates). The benchmark finds the counter
 * with dlsym(RTLD_DEFAULT, "multitouchd_allocation_count") and reads it before and after the frames
 * it measures; without this library preloaded it says that it counted nothing. A count, not a time:
 * the same binary and input give the same number on any machine.
 *
 * The Swift runtime allocates through malloc (swift_slowAlloc; aligned_alloc or posix_memalign above
 * 16-byte alignment), also when it is linked statically (--static-swift-stdlib): libc stays dynamic,
 * so these definitions take its place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static uint64_t allocations;

static inline void count(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

/* The number of allocations so far (the benchmark's only entry point). */
uint64_t multitouchd_allocation_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
    count();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    count();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    count();
    return __libc_realloc(p, size);
}

void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    /* glibc's own checks: a power of two, a multiple of sizeof(void *). */
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t size) {
    count();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count();
    return __libc_pvalloc(size);
}
