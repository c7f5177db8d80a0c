/* The message table of the bottleneck classes (lib/render/class_text.c):
 * one row per registry class and no other, each with a title and the three
 * explain texts; the title comes from the row by class id, English for JSON;
 * an id without a row renders as itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/rules.h"
#include "render/class_text.h"
#include "support_test_main.h"

static void one_row_per_registry_class(void **state) {
  (void)state;
  int n = 0;
  const struct gw_class_message *rows = gw_class_messages(&n);
  assert_int_equal(n, gw_nrules);
  for (int i = 0; i < n; i++) {
    /* in registry order, as explain lists them */
    assert_string_equal(rows[i].id, gw_rules[i]->id);
    assert_ptr_equal(gw_class_message_find(gw_rules[i]->id), &rows[i]);
    if (!rows[i].title[0] || !rows[i].signals[0] || !rows[i].confirm[0] || !rows[i].fixes[0])
      fail_msg("class %s: a text is empty", rows[i].id);
  }
  assert_null(gw_class_message_find("test_always")); /* the test-only class's row is in the test build only */
  assert_null(gw_class_message_find(NULL));
}

static void words_come_from_the_row(void **state) {
  (void)state;
  assert_string_equal(gw_class_title("small_batch", 0), "Batches are too small to fill the GPU");
  assert_string_equal(gw_class_title("multi_gpu_sync", 0), "GPUs wait on each other");
  assert_non_null(strstr(gw_class_signals("hardware_env"), "Xid errors in the kernel log"));
  assert_non_null(strstr(gw_class_confirm("input_pipeline"), "gpuwhy experiment fixed-batch"));
  assert_non_null(strstr(gw_class_fixes("launch_overhead"), "CUDA Graphs"));
  /* an id without a row: the id as the title, empty explain texts, never NULL */
  assert_string_equal(gw_class_title("no_such_class", 1), "no_such_class");
  assert_string_equal(gw_class_title(NULL, 0), "?");
  assert_string_equal(gw_class_signals("no_such_class"), "");
  assert_string_equal(gw_class_confirm("no_such_class"), "");
  assert_string_equal(gw_class_fixes("no_such_class"), "");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(one_row_per_registry_class),
    cmocka_unit_test(words_come_from_the_row),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
