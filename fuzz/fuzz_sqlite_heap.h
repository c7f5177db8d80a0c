/* SQLite's memory for the fuzz targets: freed blocks kept on per-size lists
 * and handed out again, instead of a trip through AddressSanitizer's
 * allocator for each of the thousands of small blocks that parsing a schema
 * and preparing statements take (its allocation, fill, quarantine and
 * libFuzzer's malloc hooks were over 40% of an SQL-fed execution).
 *
 * AddressSanitizer still watches every byte our code gets from SQLite: a block
 * on a free list is poisoned (a read after sqlite3_finalize or sqlite3_free
 * is reported as use-after-poison), and the slack between the size SQLite asked
 * for and the block's size class is poisoned too (an overflow of a column's
 * text is reported). Blocks come from malloc, so LeakSanitizer still sees a
 * statement or image our code forgot to free. What is lost is the quarantine
 * for SQLite's own frees, which is SQLite's business, not ours.
 *
 * Written by hand: SQLite's own pool allocators (memsys3/5) are not compiled
 * into Debian's library, and neither poisons what it holds. */
#ifndef GW_FUZZ_SQLITE_HEAP_H
#define GW_FUZZ_SQLITE_HEAP_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define FUZZ_HEAP_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define FUZZ_HEAP_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#endif
#endif
#ifndef FUZZ_HEAP_POISON
#define FUZZ_HEAP_POISON(p, n) ((void)(p), (void)(n))
#define FUZZ_HEAP_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Size classes 32 bytes .. 1 MiB, powers of two (a page cache's bulk block
 * and a small recording's in-memory image fit); bigger blocks go straight
 * to malloc and back to free. */
#define FUZZ_HEAP_MIN_SHIFT 5
#define FUZZ_HEAP_CLASSES 16
#define FUZZ_HEAP_UNCACHED (-1)

/* Sits before each block: its size class and the size SQLite asked for
 * (rounded to 8). 16 bytes keep the block 16-byte aligned as malloc's are. */
struct fuzz_heap_header {
  struct fuzz_heap_header *next_free; /* on a free list only */
  int32_t size_class;                 /* FUZZ_HEAP_UNCACHED past the last class */
  int32_t size_bytes;
};

static struct fuzz_heap_header *fuzz_heap_free[FUZZ_HEAP_CLASSES];

/* The heap is SQLite's plumbing, not code under test: no coverage feedback
 * from its comparisons (they were a tenth of an execution's time). */
#define FUZZ_HEAP_FN static inline __attribute__((no_sanitize("coverage")))

FUZZ_HEAP_FN int fuzz_heap_class_of(int size_bytes) {
  if (size_bytes <= (1 << FUZZ_HEAP_MIN_SHIFT))
    return 0;
  int c = 32 - __builtin_clz((unsigned)size_bytes - 1u) - FUZZ_HEAP_MIN_SHIFT; /* ceil(log2(size)) - min */
  return c < FUZZ_HEAP_CLASSES ? c : FUZZ_HEAP_UNCACHED;
}

FUZZ_HEAP_FN int fuzz_heap_class_bytes(const struct fuzz_heap_header *h) {
  return h->size_class == FUZZ_HEAP_UNCACHED ? h->size_bytes : 1 << (FUZZ_HEAP_MIN_SHIFT + h->size_class);
}

FUZZ_HEAP_FN void *fuzz_heap_malloc(int size_bytes) {
  if (size_bytes <= 0)
    return NULL;
  int c = fuzz_heap_class_of(size_bytes);
  int class_bytes = c == FUZZ_HEAP_UNCACHED ? size_bytes : 1 << (FUZZ_HEAP_MIN_SHIFT + c);
  struct fuzz_heap_header *h = c == FUZZ_HEAP_UNCACHED ? NULL : fuzz_heap_free[c];
  int reused = h != NULL;
  if (reused) {
    fuzz_heap_free[c] = h->next_free; /* the header is never poisoned, only the block */
  } else if (!(h = malloc(sizeof *h + (size_t)class_bytes))) {
    return NULL;
  }
  h->next_free = NULL;
  h->size_class = c;
  h->size_bytes = size_bytes;
  char *block = (char *)(h + 1);
  FUZZ_HEAP_UNPOISON(block, size_bytes);
  /* A block from a free list was poisoned whole when it was released, so its
   * slack still is: two of the three shadow updates of a reuse were a fifth of
   * an SQL-fed execution's time. A fresh block from malloc is all addressable. */
  if (!reused)
    FUZZ_HEAP_POISON(block + size_bytes, class_bytes - size_bytes);
  return block;
}

FUZZ_HEAP_FN void fuzz_heap_release(void *p) {
  if (!p)
    return;
  struct fuzz_heap_header *h = (struct fuzz_heap_header *)p - 1;
  if (h->size_class == FUZZ_HEAP_UNCACHED) {
    free(h);
    return;
  }
  FUZZ_HEAP_POISON(p, fuzz_heap_class_bytes(h));
  h->next_free = fuzz_heap_free[h->size_class];
  fuzz_heap_free[h->size_class] = h;
}

FUZZ_HEAP_FN int fuzz_heap_size(void *p) {
  return p ? ((struct fuzz_heap_header *)p - 1)->size_bytes : 0;
}

FUZZ_HEAP_FN void *fuzz_heap_realloc(void *p, int size_bytes) {
  if (!p)
    return fuzz_heap_malloc(size_bytes);
  struct fuzz_heap_header *h = (struct fuzz_heap_header *)p - 1;
  int old_bytes = h->size_bytes;
  if (size_bytes > 0 && h->size_class != FUZZ_HEAP_UNCACHED && size_bytes <= fuzz_heap_class_bytes(h)) {
    /* fits its block: only the poisoned slack moves */
    int class_bytes = fuzz_heap_class_bytes(h);
    FUZZ_HEAP_UNPOISON(p, size_bytes);
    FUZZ_HEAP_POISON((char *)p + size_bytes, class_bytes - size_bytes);
    h->size_bytes = size_bytes;
    return p;
  }
  void *q = fuzz_heap_malloc(size_bytes);
  if (!q)
    return NULL;
  memcpy(q, p, (size_t)(old_bytes < size_bytes ? old_bytes : size_bytes));
  fuzz_heap_release(p);
  return q;
}

/* SQLite uses the whole of what xRoundup says it will get: 8-byte steps
 * only, so that the poisoned slack past it stays out of SQLite's reach. */
FUZZ_HEAP_FN int fuzz_heap_roundup(int size_bytes) {
  return (size_bytes + 7) & ~7;
}
static inline int fuzz_heap_init(void *unused) {
  (void)unused;
  return SQLITE_OK;
}
static inline void fuzz_heap_shutdown(void *unused) {
  (void)unused;
}

/* Before SQLite's first use (with SQLITE_CONFIG_SINGLETHREAD: the lists have no lock). */
static inline int fuzz_sqlite_heap_install(void) {
  static const sqlite3_mem_methods methods = {fuzz_heap_malloc,  fuzz_heap_release, fuzz_heap_realloc,  fuzz_heap_size,
                                              fuzz_heap_roundup, fuzz_heap_init,    fuzz_heap_shutdown, NULL};
  return sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
}

#endif
