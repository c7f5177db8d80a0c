#include "value_column.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* 256 ticks a block: a tick's entry fits a byte whatever the block holds. */
#define BLOCK 256
/* open addressing over the bit patterns of one block's values: twice the block, a power of two */
#define SLOTS 512

struct gw_value_column *gw_column_new(size_t n) {
  double *raw = gw_xcalloc(n ? n : 1, sizeof *raw);
  for (size_t i = 0; i < n; i++)
    raw[i] = NAN;
  return gw_column_adopt(raw, n);
}

struct gw_value_column *gw_column_adopt(double *raw, size_t n) {
  struct gw_value_column *c = gw_xcalloc(1, sizeof *c);
  c->n = n;
  c->raw = raw ? raw : gw_xcalloc(1, sizeof *c->raw);
  return c;
}

static void free_packed(struct gw_value_column *c) {
  free(c->value_at);
  free(c->code_at);
  free(c->code);
  free(c->values);
  c->value_at = c->code_at = NULL;
  c->code = NULL;
  c->values = NULL;
}

void gw_column_free(struct gw_value_column *c) {
  if (!c)
    return;
  free(c->raw);
  free_packed(c);
  free(c);
}

static uint64_t bits_of(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

void gw_column_pack(struct gw_value_column *c) {
  /* offsets are 31 bits: a column past 2 billion ticks (6 years at 10 Hz) stays plain */
  if (!c || !c->raw || c->n >= GW_COLUMN_NIBBLES)
    return;
  size_t n = c->n, nblocks = (n + BLOCK - 1) / BLOCK;
  c->value_at = gw_xcalloc(nblocks + 1, sizeof *c->value_at);
  c->code_at = gw_xcalloc(nblocks + 1, sizeof *c->code_at);
  /* at most every value and every code: trimmed to what was used below */
  c->values = gw_xcalloc(n + 1, sizeof *c->values);
  c->code = gw_xcalloc(n + 1, sizeof *c->code);
  size_t nvalues = 0, ncodes = 0;
  uint64_t key[SLOTS];
  int16_t slot_entry[SLOTS];
  uint8_t entry[BLOCK];
  for (size_t b = 0; b < nblocks; b++) {
    size_t from = b * BLOCK, len = n - from < BLOCK ? n - from : BLOCK, d = 0;
    memset(slot_entry, -1, sizeof slot_entry);
    uint64_t prev_bits = 0;
    for (size_t k = 0; k < len; k++) {
      uint64_t bits = bits_of(c->raw[from + k]);
      if (k > 0 && bits == prev_bits) { /* a held reading: the entry before */
        entry[k] = entry[k - 1];
        continue;
      }
      prev_bits = bits;
      size_t h = (size_t)((bits * 0x9E3779B97F4A7C15ull) >> 55) & (SLOTS - 1);
      while (slot_entry[h] >= 0 && key[h] != bits)
        h = (h + 1) & (SLOTS - 1);
      if (slot_entry[h] < 0) {
        key[h] = bits;
        slot_entry[h] = (int16_t)d;
        c->values[nvalues + d] = c->raw[from + k];
        d++;
      }
      entry[k] = (uint8_t)slot_entry[h];
    }
    c->value_at[b] = (uint32_t)nvalues;
    /* the smallest of: a table and half a byte a tick, a table and a byte a tick, 8 bytes a tick */
    size_t table_bytes = d * sizeof(double), plain_bytes = len * sizeof(double);
    if (d == 1) {
      c->code_at[b] = GW_COLUMN_CONSTANT;
      nvalues += d;
    } else if (d <= 16 && table_bytes + (len + 1) / 2 < plain_bytes) {
      c->code_at[b] = (uint32_t)ncodes | GW_COLUMN_NIBBLES;
      memset(c->code + ncodes, 0, (len + 1) / 2);
      for (size_t k = 0; k < len; k++)
        c->code[ncodes + k / 2] |= (uint8_t)(entry[k] << ((k & 1) * 4));
      ncodes += (len + 1) / 2;
      nvalues += d;
    } else if (d > 16 && table_bytes + len < plain_bytes) {
      c->code_at[b] = (uint32_t)ncodes;
      memcpy(c->code + ncodes, entry, len);
      ncodes += len;
      nvalues += d;
    } else {
      c->code_at[b] = GW_COLUMN_PLAIN;
      memcpy(c->values + nvalues, c->raw + from, len * sizeof *c->values);
      nvalues += len;
    }
  }
  c->values = gw_xrealloc(c->values, (nvalues + 1) * sizeof *c->values);
  c->code = gw_xrealloc(c->code, ncodes + 1);
  free(c->raw);
  c->raw = NULL;
}

void gw_column_copy(const struct gw_value_column *c, size_t from, size_t n, double *out) {
  if (c->raw) {
    memcpy(out, c->raw + from, n * sizeof *out);
    return;
  }
  for (size_t k = 0; k < n; k++)
    out[k] = gw_column_at(c, from + k);
}

double *gw_column_range(const struct gw_value_column *c, size_t from, size_t n) {
  if (!c)
    return NULL;
  double *out = gw_xcalloc(n + 1, sizeof *out);
  gw_column_copy(c, from, n, out);
  return out;
}

double *gw_column_unpack(struct gw_value_column *c) {
  if (!c->raw) {
    double *raw = gw_xcalloc(c->n + 1, sizeof *raw);
    gw_column_copy(c, 0, c->n, raw);
    free_packed(c);
    c->raw = raw;
  }
  return c->raw;
}
