/* What an SQL-fed target has already analysed in this process. The input's
 * SQL makes a database (a recording, an export) whose bytes are analysed;
 * the same bytes analysed the same way run the same code to the same result,
 * so a repeat is skipped. Mutated SQL mostly fails at one of its statements
 * and leaves what an earlier input left: from the seeds, five recording_sql
 * inputs in six left the base recording as it was, and three import_nsys_sql
 * exports in four were byte for byte one imported before.
 *
 * Exact: a match compares the stored bytes, not only a hash. Bounded: past
 * FUZZ_SEEN_MAX_BYTES or FUZZ_SEEN_MAX_ENTRIES the set is emptied and starts
 * again (what comes again after that is analysed once more). */
#ifndef GW_FUZZ_SEEN_H
#define GW_FUZZ_SEEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

#define FUZZ_SEEN_SLOTS 8192 /* a power of two, twice the entries */
#define FUZZ_SEEN_MAX_ENTRIES (FUZZ_SEEN_SLOTS / 2)
#define FUZZ_SEEN_MAX_BYTES ((size_t)64 << 20)

struct fuzz_seen_entry {
  int used;
  uint64_t hash, variant;
  size_t size;
  unsigned char *bytes; /* NULL when size is 0 */
};

static struct {
  struct fuzz_seen_entry slot[FUZZ_SEEN_SLOTS];
  size_t entries, bytes;
} fuzz_seen_set;

/* Harness code: no coverage feedback (noinline, or -O1 puts it in the
 * instrumented caller). */
#define FUZZ_SEEN_FN static inline __attribute__((no_sanitize("coverage"), noinline))

FUZZ_SEEN_FN void fuzz_seen_clear(void) {
  for (size_t i = 0; i < FUZZ_SEEN_SLOTS; i++)
    free(fuzz_seen_set.slot[i].bytes);
  memset(&fuzz_seen_set, 0, sizeof fuzz_seen_set);
}

/* 1 when these bytes were analysed before as variant says (which renders,
 * which readers: the caller's numbering); else 0, and they are remembered. */
FUZZ_SEEN_FN int fuzz_seen(const unsigned char *bytes, size_t size, uint64_t variant) {
  uint64_t h = fuzz_hash64(bytes, size) ^ variant * 0x9e3779b97f4a7c15ull;
  size_t i = h & (FUZZ_SEEN_SLOTS - 1);
  for (; fuzz_seen_set.slot[i].used; i = (i + 1) & (FUZZ_SEEN_SLOTS - 1)) {
    const struct fuzz_seen_entry *e = &fuzz_seen_set.slot[i];
    if (e->hash == h && e->variant == variant && e->size == size && (size == 0 || memcmp(e->bytes, bytes, size) == 0))
      return 1;
  }
  if (size > FUZZ_SEEN_MAX_BYTES)
    return 0;
  if (fuzz_seen_set.entries >= FUZZ_SEEN_MAX_ENTRIES || fuzz_seen_set.bytes + size > FUZZ_SEEN_MAX_BYTES) {
    fuzz_seen_clear();
    i = h & (FUZZ_SEEN_SLOTS - 1);
  }
  struct fuzz_seen_entry *e = &fuzz_seen_set.slot[i];
  e->bytes = size ? malloc(size) : NULL;
  if (size && !e->bytes)
    abort();
  if (size)
    memcpy(e->bytes, bytes, size);
  e->used = 1;
  e->hash = h;
  e->variant = variant;
  e->size = size;
  fuzz_seen_set.entries++;
  fuzz_seen_set.bytes += size;
  return 0;
}

#endif
