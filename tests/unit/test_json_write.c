/* JSON numbers: integers stay integers (no exponent), values a double reader
 * cannot hold exactly become strings, doubles read back unchanged, and
 * unknown (NaN, infinity) is null. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/json_write.h"
#include "support_test_main.h"

static char captured[128];

static const char *number(double v) {
  FILE *f = fmemopen(captured, sizeof captured, "w");
  assert_non_null(f);
  gw_json_write_number(f, v);
  fclose(f);
  return captured;
}

static const char *integer(long long v) {
  FILE *f = fmemopen(captured, sizeof captured, "w");
  assert_non_null(f);
  gw_json_write_int(f, v);
  fclose(f);
  return captured;
}

static const char *uinteger(unsigned long long v) {
  FILE *f = fmemopen(captured, sizeof captured, "w");
  assert_non_null(f);
  gw_json_write_uint(f, v);
  fclose(f);
  return captured;
}

static void whole_doubles_print_as_integers(void **state) {
  (void)state;
  /* the byte count of issue 35: "%.6g" wrote 1.39885e+11 */
  assert_string_equal(number(139885363200.0), "139885363200");
  assert_string_equal(number(0.0), "0");
  assert_string_equal(number(-3.0), "-3");
  assert_string_equal(number(700.0), "700");
  /* 2^53 itself is still exact */
  assert_string_equal(number(9007199254740992.0), "9007199254740992");
}

static void unknown_is_null(void **state) {
  (void)state;
  assert_string_equal(number(NAN), "null");
  assert_string_equal(number(INFINITY), "null");
  assert_string_equal(number(-INFINITY), "null");
}

static void doubles_round_trip(void **state) {
  (void)state;
  assert_string_equal(number(0.1), "0.1");
  assert_string_equal(number(7200.125), "7200.125");
  assert_string_equal(number(0.9025), "0.9025");
  const double values[] = {
      1.0 / 3,  2.0 / 3, M_PI, 1e-300, 4.9e-324, 1.7976931348623157e308, 0.1 + 0.2, 12345.678901234567,
      1e16 + 2, -2.5e-7};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    const char *s = number(values[i]);
    char *end;
    double back = strtod(s, &end);
    assert_true(*end == '\0');
    if (back != values[i])
      fail_msg("%.17g printed as %s reads back as %.17g", values[i], s, back);
    /* never more than 17 significant digits, never a padded fraction */
    assert_true(strlen(s) <= 24);
  }
  /* shortest that reads back: 16 digits for 1/3, 17 for 0.1 + 0.2 */
  assert_string_equal(number(1.0 / 3), "0.3333333333333333");
  assert_string_equal(number(0.1 + 0.2), "0.30000000000000004");
}

static void integers_above_2_53_are_strings(void **state) {
  (void)state;
  assert_string_equal(integer(0), "0");
  assert_string_equal(integer(-42), "-42");
  assert_string_equal(integer(9007199254740992LL), "9007199254740992");
  assert_string_equal(integer(9007199254740993LL), "\"9007199254740993\"");
  assert_string_equal(integer(-9007199254740993LL), "\"-9007199254740993\"");
  /* an epoch timestamp in nanoseconds */
  assert_string_equal(integer(1795975669702740624LL), "\"1795975669702740624\"");
  /* the bootstrap seed of compare */
  assert_string_equal(uinteger(0x6770757768790001ULL), "\"7453586539012489217\"");
  assert_string_equal(uinteger(18446744073709551615ULL), "\"18446744073709551615\"");
  assert_string_equal(uinteger(2000), "2000");
}

static void format_into_small_buffer_fails_cleanly(void **state) {
  (void)state;
  char buf[5];
  /* "12.5" and its terminator fit in 5 bytes; "12345.5" does not */
  assert_int_equal(gw_json_format_number(buf, sizeof buf, 12.5), 4);
  assert_string_equal(buf, "12.5");
  assert_int_equal(gw_json_format_number(buf, sizeof buf, 12345.5), -1);
  assert_string_equal(buf, "");
  assert_int_equal(gw_json_format_number(buf, 0, 1), -1);
  char big[40];
  assert_int_equal(gw_json_format_number(big, sizeof big, -1.7976931348623157e308), 24);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(whole_doubles_print_as_integers),
    cmocka_unit_test(unknown_is_null),
    cmocka_unit_test(doubles_round_trip),
    cmocka_unit_test(integers_above_2_53_are_strings),
    cmocka_unit_test(format_into_small_buffer_fails_cleanly),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
