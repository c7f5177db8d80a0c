#include "text_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* a chunk's size: many short texts to a malloc; a longer text gets a chunk of its own size */
#define CHUNK_BYTES 65536

static uint64_t hash_text(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static char *store(struct gw_text_pool *p, const char *s) {
  size_t len = strlen(s) + 1;
  if (p->nchunks == 0 || p->chunk_cap - p->chunk_used < len) {
    size_t cap = len > CHUNK_BYTES ? len : CHUNK_BYTES;
    p->chunks = gw_xrealloc(p->chunks, (p->nchunks + 1) * sizeof *p->chunks);
    p->chunks[p->nchunks++] = gw_xcalloc(cap, 1);
    p->chunk_used = 0;
    p->chunk_cap = cap;
  }
  char *at = p->chunks[p->nchunks - 1] + p->chunk_used;
  memcpy(at, s, len);
  p->chunk_used += len;
  return at;
}

static void grow_slots(struct gw_text_pool *p) {
  size_t n = p->nslots ? p->nslots * 2 : 64;
  const char **slots = gw_xcalloc(n, sizeof *slots);
  for (size_t k = 0; k < p->nslots; k++) {
    if (!p->slots[k])
      continue;
    size_t h = (size_t)hash_text(p->slots[k]) & (n - 1);
    while (slots[h])
      h = (h + 1) & (n - 1);
    slots[h] = p->slots[k];
  }
  free(p->slots);
  p->slots = slots;
  p->nslots = n;
}

const char *gw_text_intern(struct gw_text_pool *p, const char *s) {
  if (2 * (p->nkept + 1) > p->nslots) /* at most half full: probes stay short */
    grow_slots(p);
  size_t h = (size_t)hash_text(s) & (p->nslots - 1);
  while (p->slots[h]) {
    if (strcmp(p->slots[h], s) == 0)
      return p->slots[h];
    h = (h + 1) & (p->nslots - 1);
  }
  p->slots[h] = store(p, s);
  p->nkept++;
  return p->slots[h];
}

void gw_text_pool_end_interning(struct gw_text_pool *p) {
  free(p->slots);
  p->slots = NULL;
  p->nslots = p->nkept = 0;
}

void gw_text_pool_move(struct gw_text_pool *into, struct gw_text_pool *from) {
  if (from->nchunks == 0) {
    gw_text_pool_clear(from);
    return;
  }
  into->chunks = gw_xrealloc(into->chunks, (into->nchunks + from->nchunks + 1) * sizeof *into->chunks);
  memcpy(into->chunks + into->nchunks, from->chunks, from->nchunks * sizeof *from->chunks);
  into->nchunks += from->nchunks;
  into->chunk_used = into->chunk_cap; /* the last chunk may be from's: the next text opens a new one */
  free(from->chunks);
  free(from->slots);
  memset(from, 0, sizeof *from);
}

void gw_text_pool_clear(struct gw_text_pool *p) {
  for (size_t k = 0; k < p->nchunks; k++)
    free(p->chunks[k]);
  free(p->chunks);
  free(p->slots);
  memset(p, 0, sizeof *p);
}
