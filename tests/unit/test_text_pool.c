#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/text_pool.h"
#include "support_test_main.h"

static void same_text_kept_once(void **state) {
  (void)state;
  struct gw_text_pool p = {0};
  const char *a = gw_text_intern(&p, "clock event reasons: 0x4 sw_power_cap");
  const char *first[3000];
  char buf[64];
  /* enough texts to fill several chunks and grow the lookup table many times */
  for (int i = 0; i < 3000; i++) {
    snprintf(buf, sizeof buf, "message %d", i);
    first[i] = gw_text_intern(&p, buf);
  }
  assert_true(p.nchunks > 0);
  assert_ptr_equal(gw_text_intern(&p, "clock event reasons: 0x4 sw_power_cap"), a);
  for (int i = 0; i < 3000; i++) {
    snprintf(buf, sizeof buf, "message %d", i);
    assert_string_equal(first[i], buf); /* earlier pointers still hold their text */
    assert_ptr_equal(gw_text_intern(&p, buf), first[i]);
  }
  assert_ptr_not_equal(gw_text_intern(&p, ""), a);
  assert_string_equal(gw_text_intern(&p, ""), "");
  /* a text longer than a chunk gets its own */
  static char big[100000];
  memset(big, 'x', sizeof big - 1);
  assert_string_equal(gw_text_intern(&p, big), big);
  /* lookup dropped: the texts stay, a text kept again is a new copy */
  gw_text_pool_end_interning(&p);
  assert_string_equal(a, "clock event reasons: 0x4 sw_power_cap");
  const char *again = gw_text_intern(&p, "clock event reasons: 0x4 sw_power_cap");
  assert_string_equal(again, a);
  gw_text_pool_clear(&p);
}

static void moved_texts_stay_valid(void **state) {
  (void)state;
  struct gw_text_pool into = {0}, from = {0};
  const char *x = gw_text_intern(&into, "first node");
  const char *y = gw_text_intern(&from, "second node");
  gw_text_pool_move(&into, &from);
  assert_int_equal(from.nchunks, 0);
  assert_int_equal(into.nchunks, 2);
  gw_text_pool_clear(&from);       /* nothing left in it */
  gw_text_pool_move(&into, &from); /* an empty pool moves nothing */
  assert_int_equal(into.nchunks, 2);
  assert_string_equal(x, "first node");
  assert_string_equal(y, "second node");
  /* a text kept after the move opens a chunk of into's own, not one of from's */
  const char *z = gw_text_intern(&into, "third");
  assert_int_equal(into.nchunks, 3);
  assert_string_equal(z, "third");
  assert_string_equal(y, "second node");
  gw_text_pool_clear(&into);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(same_text_kept_once),
    cmocka_unit_test(moved_texts_stay_valid),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
