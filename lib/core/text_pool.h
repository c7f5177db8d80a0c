/* Short texts kept once each: a long recording's events repeat a few lines
 * (a clock-reason change is one of a handful of messages, logged by every
 * GPU at each change: 380,000 rows on a day of 8 GPUs), which a fixed buffer
 * a row held 200 bytes at a time. Texts live in chunks that never move, so a
 * pointer to one stays valid until the pool is freed. */
#ifndef GW_TEXT_POOL_H
#define GW_TEXT_POOL_H

#include <stddef.h>

struct gw_text_pool {
  char **chunks;
  size_t nchunks, chunk_used, chunk_cap;
  /* the texts kept so far, by hash (open addressing), while interning */
  const char **slots;
  size_t nslots, nkept;
};

/* s kept in the pool (a pointer that stays valid until gw_text_pool_free):
 * the same pointer for the same text. */
const char *gw_text_intern(struct gw_text_pool *p, const char *s);
/* Drops the lookup table: the texts stay, later ones are kept anew. */
void gw_text_pool_end_interning(struct gw_text_pool *p);
/* Moves from's texts into into (pointers stay valid), from left empty. */
void gw_text_pool_move(struct gw_text_pool *into, struct gw_text_pool *from);
/* Frees the texts and the pool's own memory (not p). */
void gw_text_pool_clear(struct gw_text_pool *p);

#endif
