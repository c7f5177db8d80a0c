/* The host source over a whole fake /proc and /sys tree made from the input
 * (gw_host_open, gw_host_sample, gw_host_info): meminfo, loadavg, cpuinfo,
 * power supplies, the process tree of pid 1000 and its tasks, besides the
 * files the single-parser targets cover.
 *
 * Input: entries "== relative/path\n" followed by the file's bytes up to the
 * next "\n== " or the end. The entry "== @next" takes a sample and lets the
 * files after it change the tree for the next one (time moves 1 s). */
#include <errno.h>

#include "fuzz_util.h"
#include "sources/host.h"

#define MAX_ENTRIES 64
#define MAX_SAMPLES 4
#define TARGET_PID 1000

/* Paths stay inside the root: letters, digits and "._-" between slashes,
 * no "." or ".." parts. */
static int safe_path(const char *p, size_t len) {
  if (len == 0 || len > 200 || p[0] == '/')
    return 0;
  size_t part = 0;
  int dots = 1;
  for (size_t i = 0; i <= len; i++) {
    char c = i < len ? p[i] : '/';
    if (c == '/') {
      if (part == 0 || (dots && part <= 2))
        return 0;
      part = 0;
      dots = 1;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      return 0;
    dots = dots && c == '.';
    part++;
  }
  return 1;
}

/* What this input made under the root, so that the next input starts from
 * an empty root by removing just that (walking and removing the whole tree
 * took a quarter of an input's time). */
static struct {
  char **path;
  size_t n, cap;
} made_files, made_dirs;

static void remember(char ***list, size_t *n, size_t *cap, const char *path) {
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 64;
    *list = realloc(*list, *cap * sizeof **list);
    if (!*list)
      abort();
  }
  (*list)[(*n)++] = strdup(path);
}

/* The folders of path below the root (whose own length is root_len). */
static void make_parents(char *path, size_t root_len) {
  for (char *s = strchr(path + root_len + 1, '/'); s; s = strchr(s + 1, '/')) {
    *s = '\0';
    if (mkdir(path, 0700) == 0)
      remember(&made_dirs.path, &made_dirs.n, &made_dirs.cap, path);
    *s = '/';
  }
}

/* The input's file at path; its folders are made only when the file
 * cannot be made without them. A path that is already a folder (or under a
 * file) is skipped. */
static void put_file(char *path, size_t root_len, const char *body, size_t len) {
  if (fuzz_try_write_file(path, body, len) != 0) {
    if (errno != ENOENT)
      return;
    make_parents(path, root_len);
    if (fuzz_try_write_file(path, body, len) != 0)
      return;
  }
  remember(&made_files.path, &made_files.n, &made_files.cap, path);
}

/* The root emptied of what the last input made: its files, then its
 * folders deepest first; the whole tree is walked only when that leaves
 * something behind. */
static void empty_root(const char *root) {
  int clean = 1;
  for (size_t i = 0; i < made_files.n; i++) {
    if (unlink(made_files.path[i]) != 0 && errno != ENOENT)
      clean = 0;
    free(made_files.path[i]);
  }
  for (size_t i = made_dirs.n; i-- > 0;) {
    if (rmdir(made_dirs.path[i]) != 0)
      clean = 0;
    free(made_dirs.path[i]);
  }
  made_files.n = made_dirs.n = 0;
  if (!clean || rmdir(root) != 0)
    nftw(root, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  mkdir(root, 0700);
}

/* A share of time: 0..100 %, never NaN (it is stored and charted). */
static int is_share(double pct) {
  return pct >= 0 && pct <= 100.0 + 1e-6;
}

static void check_sample(const struct gw_host_sample *s) {
  FUZZ_CHECK(s->ncores >= 0 && s->nprocs >= 0 && s->ndisks >= 0);
  if (s->valid & (1u << GW_H_CPU)) {
    FUZZ_CHECK(is_share(s->total.busy_pct));
    for (int i = 0; i < s->ncores; i++)
      FUZZ_CHECK(is_share(s->cores[i].busy_pct));
  }
  for (int i = 0; i < s->nprocs; i++)
    FUZZ_CHECK(fuzz_terminated(s->procs[i].comm, sizeof s->procs[i].comm));
}

static void on_event(void *ctx, const struct gw_event *ev) {
  (void)ctx;
  FUZZ_CHECK(ev->kind && fuzz_terminated(ev->message, sizeof ev->message));
}

static int take_sample(struct gw_host **h, const char *root, int64_t *t_ns, int n) {
  struct gw_err err = {{0}};
  if (!*h) {
    if (gw_host_open(h, root, &err) != GW_OK)
      return -1; /* no proc/stat yet */
    gw_host_set_target(*h, TARGET_PID);
  }
  struct gw_host_sample s;
  struct gw_event_sink sink = {on_event, NULL};
  /* Alternate full rescans with the cheaper re-read of known pids. */
  unsigned what = n % 2 == 0 ? GW_HOST_RESCAN : GW_HOST_SKIP_SLOW;
  if (gw_host_sample(*h, *t_ns, what, &s, &sink, &err) == GW_OK)
    check_sample(&s);
  FUZZ_CHECK(fuzz_terminated(err.msg, sizeof err.msg));
  *t_ns += 1000000000;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char root[512];
  if (!root[0])
    fuzz_path(root, sizeof root, "host-root");
  empty_root(root);

  struct gw_host *h = NULL;
  int64_t t_ns = 1700000000000000000LL;
  int entries = 0, samples = 0;
  const char *p = (const char *)data, *end = p + size;
  while (p < end && entries < MAX_ENTRIES) {
    if (end - p < 3 || memcmp(p, "== ", 3) != 0)
      break;
    const char *name = p + 3;
    const char *nl = memchr(name, '\n', (size_t)(end - name));
    size_t name_len = (size_t)((nl ? nl : end) - name);
    const char *body = nl ? nl + 1 : end;
    const char *next = body;
    /* the next "\n== " (memchr: a memcmp per byte was a tenth of the time) */
    while ((next = memchr(next, '\n', (size_t)(end - next))) && !(end - next >= 4 && memcmp(next, "\n== ", 4) == 0))
      next++;
    if (!next)
      next = end;
    const char *body_end = next;
    p = next < end ? next + 1 : end;
    entries++;
    if (name_len == 5 && memcmp(name, "@next", 5) == 0) {
      if (samples < MAX_SAMPLES && take_sample(&h, root, &t_ns, samples) == 0)
        samples++;
      continue;
    }
    if (!safe_path(name, name_len))
      continue;
    char path[800];
    snprintf(path, sizeof path, "%s/%.*s", root, (int)name_len, name);
    put_file(path, strlen(root), body, (size_t)(body_end - body));
  }
  /* Two samples at least, so rates are computed. */
  while (samples < 2 && take_sample(&h, root, &t_ns, samples) == 0)
    samples++;
  if (h) {
    struct gw_host_info info;
    gw_host_info(h, &info);
    FUZZ_CHECK(fuzz_terminated(info.hostname, sizeof info.hostname));
    FUZZ_CHECK(fuzz_terminated(info.cpu_model, sizeof info.cpu_model));
    gw_host_close(h);
  }
  return 0;
}
