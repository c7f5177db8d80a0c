/* The message table of the fix ids (lib/render/fix_text.c): each id is
 * "<class>.<fix>" of a registry class, once, with words for the change and
 * why; every id the analysis emits has a row and every row is emitted (the
 * sources of lib/analysis are read for the ids); an id without a row still
 * renders as itself. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/rules.h"
#include "render/fix_text.h"
#include "fixture_env.h"
#include "support_test_main.h"

/* The registry class an id names before its dot, or NULL. */
static const struct gw_rule *class_of(const char *id) {
  const char *dot = strchr(id, '.');
  if (!dot || dot == id || dot[1] == '\0')
    return NULL;
  char cls[64];
  snprintf(cls, sizeof cls, "%.*s", (int)(dot - id), id);
  return gw_rule_find(cls);
}

static void rows_are_unique_and_worded(void **state) {
  (void)state;
  int n = 0;
  const struct gw_fix_message *rows = gw_fix_messages(&n);
  assert_true(n >= 40);
  for (int i = 0; i < n; i++) {
    if (!class_of(rows[i].id))
      fail_msg("%s: not <class>.<fix> of a registry class", rows[i].id);
    for (const char *p = strchr(rows[i].id, '.') + 1; *p; p++)
      if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
        fail_msg("%s: not snake_case", rows[i].id);
    assert_true(rows[i].what && rows[i].what[0] && rows[i].why && rows[i].why[0]);
    for (int j = 0; j < i; j++)
      if (strcmp(rows[i].id, rows[j].id) == 0)
        fail_msg("%s: two rows", rows[i].id);
    assert_ptr_equal(gw_fix_message_find(rows[i].id), &rows[i]);
  }
}

static void words_come_from_the_row(void **state) {
  (void)state;
  struct gw_fix fix = {"small_batch.raise_batch"};
  assert_string_equal(gw_fix_what(&fix, 0), "raise the batch size (sweep it), keeping 20-30% of device memory free");
  assert_string_equal(gw_fix_why(&fix, 0),
                      "bigger kernels fill more SMs; the headroom avoids allocator thrash and OOM");
  /* an id without a row: the id as the change, never NULL */
  struct gw_fix unknown = {"small_batch.no_such_fix"};
  assert_string_equal(gw_fix_what(&unknown, 1), "small_batch.no_such_fix");
  assert_string_equal(gw_fix_why(&unknown, 1), "");
  assert_null(gw_fix_message_find("small_batch.no_such_fix"));
}

/* Every quoted "<class>.<fix>" in the file at path: checked against the
 * table (a row each), and counted in seen[] by row. */
static void scan_source(const char *path, const struct gw_fix_message *rows, int *seen) {
  FILE *in = fopen(path, "r");
  assert_non_null(in);
  char line[4096];
  while (fgets(line, sizeof line, in)) {
    for (char *q = strchr(line, '"'); q; q = strchr(q + 1, '"')) {
      char *end = strchr(q + 1, '"');
      if (!end)
        break;
      char lit[128];
      size_t len = (size_t)(end - q - 1);
      if (len > 0 && len < sizeof lit) {
        memcpy(lit, q + 1, len);
        lit[len] = '\0';
        int snake = strspn(lit, "abcdefghijklmnopqrstuvwxyz0123456789_.") == len;
        if (snake && class_of(lit)) {
          const struct gw_fix_message *row = gw_fix_message_find(lit);
          if (!row)
            fail_msg("%s: fix id %s has no row in lib/render/fix_text.c", path, lit);
          seen[row - rows]++;
        }
      }
      q = end;
    }
  }
  fclose(in);
}

static void every_emitted_id_has_a_row_and_every_row_is_emitted(void **state) {
  (void)state;
  const char *src = fixture_env_or_skip("GW_SOURCE_DIR");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/lib/analysis", src);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  const struct gw_fix_message *rows = gw_fix_messages(&n);
  int *seen = calloc((size_t)n, sizeof *seen);
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0)
      continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    scan_source(path, rows, seen);
    files++;
  }
  closedir(d);
  assert_true(files >= 10);
  for (int i = 0; i < n; i++)
    if (!seen[i])
      fail_msg("%s: a row no source in lib/analysis emits", rows[i].id);
  free(seen);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(rows_are_unique_and_worded),
    cmocka_unit_test(words_come_from_the_row),
    cmocka_unit_test(every_emitted_id_has_a_row_and_every_row_is_emitted),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
