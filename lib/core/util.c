#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void gw_err_set(struct gw_err *err, const char *fmt, ...) {
  if (!err)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
}

static int64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t gw_now_realtime_ns(void) {
  return clock_ns(CLOCK_REALTIME);
}
int64_t gw_now_monotonic_ns(void) {
  return clock_ns(CLOCK_MONOTONIC);
}

int64_t gw_monotonic_to_realtime_offset_ns(void) {
  /* Read realtime between two monotonic reads to halve the error. */
  int64_t m0 = clock_ns(CLOCK_MONOTONIC);
  int64_t r = clock_ns(CLOCK_REALTIME);
  int64_t m1 = clock_ns(CLOCK_MONOTONIC);
  return r - (m0 + (m1 - m0) / 2);
}

int gw_path_at(const char *root, const char *path, char *out, size_t cap) {
  if (!root)
    root = "";
  size_t rl = strlen(root);
  while (rl > 0 && root[rl - 1] == '/')
    rl--;
  int n = snprintf(out, cap, "%.*s%s", (int)rl, root, path);
  return (n < 0 || (size_t)n >= cap) ? -1 : 0;
}

long gw_read_file_at(const char *root, const char *path, char *buf, size_t cap, int *truncated) {
  char full[4096];
  if (truncated)
    *truncated = 0;
  if (cap == 0 || gw_path_at(root, path, full, sizeof full) != 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(full, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t len = 0;
  for (;;) {
    if (len + 1 >= cap) {
      /* Probe one more byte to tell "exactly full" from "truncated". */
      char extra;
      ssize_t e = read(fd, &extra, 1);
      if (e > 0 && truncated)
        *truncated = 1;
      break;
    }
    ssize_t r = read(fd, buf + len, cap - 1 - len);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      int saved = errno;
      close(fd);
      errno = saved;
      return -1;
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  close(fd);
  buf[len] = '\0';
  return (long)len;
}

/* gw_parse_u64, gw_parse_i64 and gw_parse_double: one parser per type, the
 * same checks for each: s is one number and nothing else (no empty string,
 * no trailing text, no range error), with reject_minus for the unsigned
 * type, which strtoull would wrap. A macro, since only the type and the
 * strto* call differ. */
#define GW_DEFINE_NUMBER_PARSER(name, type, reject_minus, strto_call)                                                  \
  int name(const char *s, type *out) {                                                                                 \
    if (!s || !*s || (reject_minus && *s == '-'))                                                                      \
      return -1;                                                                                                       \
    char *end;                                                                                                         \
    errno = 0;                                                                                                         \
    type v = strto_call;                                                                                               \
    if (errno || end == s || *end)                                                                                     \
      return -1;                                                                                                       \
    *out = v;                                                                                                          \
    return 0;                                                                                                          \
  }

GW_DEFINE_NUMBER_PARSER(gw_parse_u64, uint64_t, 1, strtoull(s, &end, 10))
GW_DEFINE_NUMBER_PARSER(gw_parse_i64, int64_t, 0, strtoll(s, &end, 10))
GW_DEFINE_NUMBER_PARSER(gw_parse_double, double, 0, strtod(s, &end))
#undef GW_DEFINE_NUMBER_PARSER

int gw_strlcpy(char *dst, const char *src, size_t cap) {
  if (cap == 0)
    return 1;
  size_t n = strlen(src);
  int trunc = n >= cap;
  if (trunc)
    n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
  return trunc;
}

int gw_copy_token(char *dst, size_t cap, const char *src, size_t n) {
  if (n == 0 || n >= cap)
    return -1;
  memcpy(dst, src, n);
  dst[n] = '\0';
  return 0;
}

int gw_str_append(char *buf, size_t cap, size_t *len, const char *s) {
  size_t n = strlen(s);
  if (*len + n + 1 > cap)
    return -1;
  memcpy(buf + *len, s, n + 1);
  *len += n;
  return 0;
}

static void out_of_memory(void) {
  static const char msg[] = "gpuwhy: out of memory\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  abort();
}

void *gw_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    out_of_memory();
  return p;
}

void *gw_xrealloc(void *p, size_t size) {
  void *q = realloc(p, size ? size : 1);
  if (!q)
    out_of_memory();
  return q;
}

char *gw_xstrdup(const char *s) {
  char *p = strdup(s ? s : "");
  if (!p)
    out_of_memory();
  return p;
}

int gw_name_matches(const char *name, const char *prefix, const char *suffix) {
  size_t n = strlen(name), np = strlen(prefix), ns = strlen(suffix);
  return n > np + ns && strncmp(name, prefix, np) == 0 && strcmp(name + n - ns, suffix) == 0;
}

int gw_mkdir_p(const char *dir) {
  char tmp[1024];
  if (gw_strlcpy(tmp, dir, sizeof tmp))
    return -1;
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
      return -1;
    *p = '/';
  }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int gw_errbuf_fail(char *errbuf, size_t errcap, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, errcap, fmt, ap);
  va_end(ap);
  return rc;
}

void gw_remove_matching_files(const char *dir, const char *prefix, const char *suffix) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!gw_name_matches(de->d_name, prefix, suffix))
      continue;
    char path[8192];
    if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) < (int)sizeof path)
      unlink(path);
  }
  closedir(d);
}

int gw_make_temp_dir(const char *prefix, char *out, size_t cap, const char **parent_out) {
  const char *parent = getenv("TMPDIR");
  parent = parent && parent[0] ? parent : "/tmp";
  if (parent_out)
    *parent_out = parent;
  int n = snprintf(out, cap, "%s/%s-XXXXXX", parent, prefix);
  if (n < 0 || (size_t)n >= cap) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return mkdtemp(out) ? 0 : -1;
}

int gw_path_beside_exe(const char *rel, char *out, size_t cap) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return -1;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash)
    return -1;
  *slash = '\0';
  char path[2 * PATH_MAX];
  snprintf(path, sizeof path, "%s%s", exe, rel);
  char *real = realpath(path, NULL);
  int rc = real && !gw_strlcpy(out, real, cap) ? 0 : -1;
  free(real);
  return rc;
}

size_t gw_first_at_or_after(const int64_t *t_ns, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t_ns[mid] < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Characters a POSIX shell takes literally in a word. */
static int shell_safe(const char *s) {
  if (!*s)
    return 0;
  for (; *s; s++)
    if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_/.,:=@%+-", *s))
      return 0;
  return 1;
}

int gw_shell_quote(const char *arg, char *buf, size_t cap) {
  size_t n = 0;
#define PUT(c)                                                                                                         \
  do {                                                                                                                 \
    if (n + 1 >= cap)                                                                                                  \
      return -1;                                                                                                       \
    buf[n++] = (c);                                                                                                    \
  } while (0)
  if (shell_safe(arg)) {
    for (const char *s = arg; *s; s++)
      PUT(*s);
  } else {
    PUT('\'');
    for (const char *s = arg; *s; s++) {
      if (*s == '\'') {
        PUT('\'');
        PUT('\\');
        PUT('\'');
      }
      PUT(*s);
    }
    PUT('\'');
  }
#undef PUT
  if (cap == 0)
    return -1;
  buf[n] = '\0';
  return 0;
}
