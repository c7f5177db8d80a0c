/* A per-tick series of doubles kept small without losing a bit: a long
 * recording holds millions of ticks per GPU metric (a day at 10 Hz on 8 GPUs:
 * 7 million, 55 MB a metric as plain doubles), and the values repeat (a
 * reading held between samples, an integer percentage, a GPM window's
 * activity shaped by an integer GPU-Util). Packed, the ticks go in blocks of
 * 256, each with its table of distinct values (compared bit for bit, NAN
 * included) and a byte a tick naming its entry (half a byte for a table of
 * 16 at most, none for a block of one value); a block whose values are
 * nearly all distinct keeps them as they are (never more than 8 bytes a tick
 * and a few a block). Every value reads back identical to the double that
 * was packed. */
#ifndef GW_VALUE_COLUMN_H
#define GW_VALUE_COLUMN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* code_at of a block: its entries' offset in code, a byte a tick; with GW_COLUMN_NIBBLES set, half a byte a tick
 * (a table of at most 16); or one of the two kinds of block without entries */
#define GW_COLUMN_NIBBLES 0x80000000u
#define GW_COLUMN_CONSTANT (UINT32_MAX - 1) /* one value for every tick */
#define GW_COLUMN_PLAIN UINT32_MAX          /* its ticks' values in order */

struct gw_value_column {
  size_t n;
  /* unpacked: the n values (the loader and the analysis write them so); NULL once packed */
  double *raw;
  /* packed: per block the offset of its table in values and how its ticks name their entries (code_at above) */
  uint32_t *value_at, *code_at;
  uint8_t *code;
  double *values;
};

/* A new unpacked column of n values, every one NAN (n may be 0). */
struct gw_value_column *gw_column_new(size_t n);
/* A column that takes raw (n values, from malloc) as its own. */
struct gw_value_column *gw_column_adopt(double *raw, size_t n);
void gw_column_free(struct gw_value_column *c);

/* Packs an unpacked column (a packed one is left as it is). */
void gw_column_pack(struct gw_value_column *c);
/* The values as a plain array the caller may write, the column unpacked
 * until gw_column_pack. */
double *gw_column_unpack(struct gw_value_column *c);

/* Tick i's value; NAN when c is NULL (the metric is not recorded). */
static inline double gw_column_at(const struct gw_value_column *c, size_t i) {
  if (!c)
    return (double)NAN;
  if (c->raw)
    return c->raw[i];
  size_t b = i >> 8, k = i & 255, entry;
  uint32_t code_at = c->code_at[b];
  if (code_at < GW_COLUMN_NIBBLES)
    entry = c->code[code_at + k];
  else if (code_at == GW_COLUMN_PLAIN)
    entry = k;
  else if (code_at == GW_COLUMN_CONSTANT)
    entry = 0;
  else
    entry = (c->code[(code_at & ~GW_COLUMN_NIBBLES) + (k >> 1)] >> ((k & 1) * 4)) & 15;
  return c->values[c->value_at[b] + entry];
}

/* Copies ticks [from, from + n) into out (n doubles). */
void gw_column_copy(const struct gw_value_column *c, size_t from, size_t n, double *out);
/* The same into a new array (free it); NULL when c is NULL. */
double *gw_column_range(const struct gw_value_column *c, size_t from, size_t n);

#endif
