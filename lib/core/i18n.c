#include "core/i18n.h"

#include <dlfcn.h>
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#ifndef GW_LOCALEDIR
#define GW_LOCALEDIR "/usr/local/share/locale"
#endif

static int g_ready;

/* Per thread, so one thread's JSON never changes another's language. */
static _Thread_local int thread_english;

void gw_i18n_thread_english(int english) {
  thread_english = english;
}

int gw_i18n_thread_is_english(void) {
  return thread_english;
}

const char *gw_gettext(const char *msgid) {
  if (!msgid || !msgid[0] || thread_english)
    return msgid;
  return dgettext(GW_TEXTDOMAIN, msgid);
}

const char *gw_ngettext(const char *msgid, const char *msgid_plural, unsigned long n) {
  if (thread_english)
    return n == 1 ? msgid : msgid_plural; /* English's two forms, as gettext gives them without a catalog */
  return dngettext(GW_TEXTDOMAIN, msgid, msgid_plural, n);
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void) {
  c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* The C locale as an object for the *_l functions, or 0 when it could not
 * be made (no memory): the caller then keeps the locale's text. */
static locale_t english_locale(void) {
  pthread_once(&c_locale_once, make_c_locale);
  return c_locale;
}

const char *gw_strerror(int errnum) {
  locale_t c = thread_english ? english_locale() : (locale_t)0;
  return c ? strerror_l(errnum, c) : strerror(errnum);
}

const char *gw_dlerror(void) {
  locale_t c = thread_english ? english_locale() : (locale_t)0;
  if (!c)
    return dlerror();
  locale_t was = uselocale(c);
  const char *why = dlerror();
  uselocale(was);
  return why;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void pick_localedir(char *out, size_t cap) {
  const char *env = getenv("GPUWHY_LOCALEDIR");
  if (env && env[0]) {
    gw_strlcpy(out, env, cap);
    return;
  }
  /* A binary run from its build tree finds the catalogs built beside it.
   * is_dir matters: next to /usr/bin/gpuwhy, "locale" is the locale program. */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      int k = snprintf(out, cap, "%s/locale", exe);
      if (k > 0 && (size_t)k < cap && is_dir(out))
        return;
      /* An installed binary, <prefix>/bin/gpuwhy, under any prefix (cmake
       * --install --prefix, a .deb): the catalogs are in <prefix>/share/locale. */
      k = snprintf(out, cap, "%s/../share/locale", exe);
      if (k > 0 && (size_t)k < cap && is_dir(out))
        return;
    }
  }
  gw_strlcpy(out, GW_LOCALEDIR, cap);
}

/* The language the environment asks for (LC_ALL, LC_MESSAGES, LANG: the
 * order setlocale uses), or NULL for none or the C locale. */
static const char *wanted_locale(void) {
  static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (!v || !v[0])
      continue;
    if (strcmp(v, "C") == 0 || strcmp(v, "POSIX") == 0 || strncmp(v, "C.", 2) == 0)
      return NULL;
    return v;
  }
  return NULL;
}

/* LANG=zh_CN.UTF-8 on a machine without that locale (a container without
 * the locales package): setlocale fails and gettext would stay English.
 * The catalogs do not need the locale's data, only a non-C locale and a
 * language name, so switch to C.UTF-8 and name the language in LANGUAGE,
 * which gettext reads first (unless the user already set LANGUAGE). */
static void fall_back_to_c_utf8(void) {
  const char *want = wanted_locale();
  if (!want || !setlocale(LC_ALL, "C.UTF-8"))
    return;
  const char *language = getenv("LANGUAGE");
  if (language && language[0])
    return;
  char lang[64];
  gw_strlcpy(lang, want, sizeof lang);
  lang[strcspn(lang, ".@")] = '\0'; /* zh_CN.UTF-8@x -> zh_CN */
  if (lang[0])
    setenv("LANGUAGE", lang, 0);
}

void gw_i18n_init(void) {
  if (g_ready)
    return;
  g_ready = 1;
  if (!setlocale(LC_ALL, ""))
    fall_back_to_c_utf8();
  /* Numbers keep a decimal point in every language: JSON output and the
   * option parsers rely on it. */
  setlocale(LC_NUMERIC, "C");
  char dir[PATH_MAX]; /* bindtextdomain keeps its own copy */
  pick_localedir(dir, sizeof dir);
  bindtextdomain(GW_TEXTDOMAIN, dir);
  /* The catalogs are UTF-8 and so is every report, whatever LC_CTYPE says. */
  bind_textdomain_codeset(GW_TEXTDOMAIN, "UTF-8");
}

/* Width of one code point in terminal columns. */
static int cp_width(uint32_t c) {
  if ((c >= 0x0300 && c <= 0x036F) || c == 0x200B) /* combining marks, zero-width space */
    return 0;
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
      (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
      (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD))
    return 2;
  return 1;
}

int gw_text_width(const char *s) {
  int w = 0;
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    uint32_t c = *p;
    int len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0) { /* a stray byte: one column, as a terminal shows a replacement */
      w++;
      p++;
      continue;
    }
    if (len > 1) {
      c &= 0x3Fu >> (len - 1);
      int k = 1;
      for (; k < len && (p[k] & 0xC0) == 0x80; k++)
        c = (c << 6) | (p[k] & 0x3Fu);
      if (k < len) { /* truncated sequence */
        w++;
        p++;
        continue;
      }
    }
    w += cp_width(c);
    p += len;
  }
  return w;
}

void gw_fputs_padded(FILE *out, const char *s, int width) {
  fputs(s ? s : "", out);
  for (int w = gw_text_width(s); w < width; w++)
    fputc(' ', out);
}
