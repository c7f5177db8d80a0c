/* A thread's choice of English (lib/core/i18n.c, gw_i18n_thread_english):
 * under zh_CN its gettext, plural forms, strerror and dlerror are English,
 * another thread keeps the translations at the same moment, and the
 * process's locale is never switched (issue 36). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/util.h"
#include "support_test_main.h"

/* The zh_CN catalog of the build tree (beside the gpuwhy binary), or skip. */
static int use_zh_catalog(void **state) {
  (void)state;
  const char *bin = getenv("GW_BIN");
  if (!bin) {
    fprintf(stderr, "GW_BIN is not set: skipped\n");
    exit(77);
  }
  char dir[PATH_MAX], catalog[PATH_MAX + 64];
  gw_strlcpy(dir, bin, sizeof dir);
  snprintf(catalog, sizeof catalog, "%s/locale", dirname(dir));
  char mo[PATH_MAX + 128];
  snprintf(mo, sizeof mo, "%s/zh_CN/LC_MESSAGES/gpuwhy.mo", catalog);
  FILE *f = fopen(mo, "rb");
  if (!f) {
    fprintf(stderr, "no %s: skipped\n", mo);
    exit(77);
  }
  fclose(f);
  setenv("GPUWHY_LOCALEDIR", catalog, 1);
  unsetenv("LC_ALL");
  unsetenv("LC_MESSAGES");
  unsetenv("LANGUAGE");
  setenv("LANG", "zh_CN.UTF-8", 1);
  gw_i18n_init();
  return 0;
}

static const char *translated_pass(void) {
  return _("PASS");
}

static void *words_of_other_thread(void *out) {
  gw_strlcpy(out, translated_pass(), 64);
  return NULL;
}

static void english_for_this_thread_only(void **state) {
  (void)state;
  char *locale_before = gw_xstrdup(setlocale(LC_MESSAGES, NULL));
  assert_string_equal(translated_pass(), "通过");

  gw_i18n_thread_english(1);
  assert_true(gw_i18n_thread_is_english());
  const char *msgid = "PASS";
  assert_ptr_equal(gw_gettext(msgid), msgid); /* the msgid itself */
  assert_string_equal(gw_ngettext("%d file", "%d files", 1), "%d file");
  assert_string_equal(gw_ngettext("%d file", "%d files", 2), "%d files");
  assert_string_equal(gw_strerror(ENOENT), "No such file or directory");
  /* "" stays "" (gettext("") would be the catalog's header) */
  assert_string_equal(gw_gettext(""), "");

  /* Another thread, at the same moment, still speaks the locale's language. */
  char other[64] = "";
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, words_of_other_thread, other), 0);
  pthread_join(t, NULL);
  assert_string_equal(other, "通过");

  gw_i18n_thread_english(0);
  assert_false(gw_i18n_thread_is_english());
  assert_string_equal(translated_pass(), "通过");
  /* The process's locale never moved. */
  assert_string_equal(setlocale(LC_MESSAGES, NULL), locale_before);
  free(locale_before);
}

static void dlerror_in_english(void **state) {
  (void)state;
  gw_i18n_thread_english(1);
  assert_null(dlopen("/nonexistent/libgpuwhy-test.so", RTLD_LAZY));
  const char *why = gw_dlerror();
  assert_non_null(why);
  /* glibc's words; the C library of the zh_CN locale, when installed,
   * translates them without the thread's choice */
  if (!strstr(why, "cannot open shared object file"))
    fail_msg("dlerror not in English: %s", why);
  gw_i18n_thread_english(0);
  /* nothing pending: NULL, as dlerror gives */
  assert_null(gw_dlerror());
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(english_for_this_thread_only),
    cmocka_unit_test(dlerror_in_english),
};
SUPPORT_TEST_MAIN(tests, use_zh_catalog, NULL)
