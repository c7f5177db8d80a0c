#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util.h"
#include "core/value_column.h"
#include "support_test_main.h"

static uint64_t bits(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

/* Every tick of c reads back the very bits of want, through gw_column_at and
 * gw_column_copy. */
static void assert_same_bits(const struct gw_value_column *c, const double *want, size_t n) {
  double *copy = gw_column_range(c, 0, n);
  for (size_t i = 0; i < n; i++) {
    assert_true(bits(gw_column_at(c, i)) == bits(want[i]));
    assert_true(bits(copy[i]) == bits(want[i]));
  }
  free(copy);
}

/* A column mixing what a GPU's series holds: held readings (runs), integer
 * percentages, NAN gaps, -0.0 beside 0.0, a constant stretch, and one where
 * every tick differs (a shaped GPM activity); its last block is partial. */
static double *mixed_values(size_t n) {
  double *v = gw_xcalloc(n, sizeof *v);
  for (size_t i = 0; i < n; i++) {
    if (i < 1000)
      v[i] = (double)(i / 7) * 1.25; /* held for 7 ticks */
    else if (i < 2000)
      v[i] = (double)(i % 101); /* integer percent */
    else if (i < 2600)
      v[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? 0.0 : -0.0;
    else if (i < 3200)
      v[i] = 7.5; /* a reading that did not change */
    else
      v[i] = sin((double)i) * 88.3177195305619; /* all distinct */
  }
  return v;
}

static void packed_reads_back_every_bit(void **state) {
  (void)state;
  size_t n = 3333;
  double *want = mixed_values(n);
  struct gw_value_column *c = gw_column_adopt(mixed_values(n), n);
  gw_column_pack(c);
  assert_null(c->raw);
  assert_same_bits(c, want, n);
  /* a block of held readings keeps a small table and a byte a tick, one of three values half a byte, a constant
   * one no entries; the all-distinct tail is kept plain */
  assert_true(c->code_at[0] < GW_COLUMN_NIBBLES);
  assert_true(c->value_at[1] - c->value_at[0] <= 256 / 7 + 2);
  assert_true((c->code_at[8] & GW_COLUMN_NIBBLES) && c->code_at[8] < GW_COLUMN_CONSTANT);
  assert_int_equal(c->value_at[9] - c->value_at[8], 3);
  assert_true(c->code_at[11] == GW_COLUMN_CONSTANT);
  assert_int_equal(c->value_at[12] - c->value_at[11], 1);
  assert_true(c->code_at[n / 256] == GW_COLUMN_PLAIN);
  /* a range inside the column, across a block boundary */
  double part[300];
  gw_column_copy(c, 200, 300, part);
  for (size_t k = 0; k < 300; k++)
    assert_true(bits(part[k]) == bits(want[200 + k]));
  /* unpacked for writing, the values are the same and writable; packed again, the write stays */
  double *raw = gw_column_unpack(c);
  assert_non_null(raw);
  assert_same_bits(c, want, n);
  raw[5] = want[5] = 42.5;
  gw_column_pack(c);
  gw_column_pack(c); /* packing a packed column changes nothing */
  assert_same_bits(c, want, n);
  gw_column_free(c);
  free(want);
}

static void unknown_stays_unknown(void **state) {
  (void)state;
  struct gw_value_column *c = gw_column_new(600);
  gw_column_pack(c);
  for (size_t i = 0; i < 600; i++)
    assert_true(isnan(gw_column_at(c, i)));
  /* an absent metric reads as unknown, its range as none */
  assert_true(isnan(gw_column_at(NULL, 3)));
  assert_null(gw_column_range(NULL, 0, 3));
  gw_column_free(c);
  gw_column_free(NULL);
  /* an empty column packs and frees */
  c = gw_column_new(0);
  gw_column_pack(c);
  assert_int_equal(c->n, 0);
  gw_column_free(c);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(packed_reads_back_every_bit),
    cmocka_unit_test(unknown_stays_unknown),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
