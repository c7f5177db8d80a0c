/* The CUDA runtime the user's stack will use, against the CUDA version the
 * driver supports. Three places tell: the PyTorch that python3 imports (and
 * the libcudart / libcupti next to it), /usr/local/cuda/version.json, and
 * nvcc -V. A runtime newer than the driver is the classic "CUDA driver version
 * is insufficient" failure, or a quieter loss of PTX JIT within one major. */
#include "check_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_TIMEOUT_MS 8000
#define NVCC_TIMEOUT_MS 5000

/* Prints one marked line, so warnings printed while torch imports do not
 * confuse the parse; exits 0 without torch. */
static const char torch_probe_code[] = "import sys\n"
                                       "try:\n"
                                       "    import torch\n"
                                       "except Exception as e:\n"
                                       "    print('gpuwhy-notorch', type(e).__name__)\n"
                                       "    sys.exit(0)\n"
                                       "print('gpuwhy-torch', torch.__version__, torch.version.cuda, torch.__file__)\n";

/* ---- parsers ---- */

int gw_check_parse_major_minor(const char *text, struct check_cuda_version *out) {
  out->major = out->minor = -1;
  if (!text || !isdigit((unsigned char)text[0]))
    return -1;
  char *end;
  long major = strtol(text, &end, 10);
  if (*end != '.' || !isdigit((unsigned char)end[1]) || major < 1 || major > 999)
    return -1;
  long minor = strtol(end + 1, &end, 10);
  if (minor < 0 || minor > 99 || (*end && *end != '.' && !isspace((unsigned char)*end) && *end != ','))
    return -1;
  out->major = (int)major;
  out->minor = (int)minor;
  return 0;
}

int gw_check_parse_nvcc(const char *text, struct check_cuda_version *out) {
  out->major = out->minor = -1;
  const char *p = text ? strstr(text, ", release ") : NULL;
  return p ? gw_check_parse_major_minor(p + 10, out) : -1;
}

static const char *skip_ws(const char *p) {
  while (*p && isspace((unsigned char)*p))
    p++;
  return p;
}

/* The first byte of the value of the JSON key at p (key_len bytes, quotes
 * included), past the ':' and white space; NULL when no ':' follows. */
static const char *value_of_key(const char *p, size_t key_len) {
  p = skip_ws(p + key_len);
  return *p == ':' ? skip_ws(p + 1) : NULL;
}

/* The "cuda" object's "version" string; the file lists one object per
 * component ("cuda_cudart", "cuda_nvcc", ...), each with its own version. */
int gw_check_parse_version_json(const char *text, struct check_cuda_version *out) {
  out->major = out->minor = -1;
  const char *p = text ? strstr(text, "\"cuda\"") : NULL;
  if (!p)
    return -1;
  p = value_of_key(p, 6);
  if (!p || *p != '{')
    return -1;
  const char *close = strchr(p, '}');
  const char *v = strstr(p, "\"version\"");
  if (!v || (close && v > close))
    return -1;
  v = value_of_key(v, 9);
  if (!v || *v != '"')
    return -1;
  return gw_check_parse_major_minor(v + 1, out);
}

/* "CUDA Version 10.2.89" in version.txt of toolkits before 11.1. */
static int parse_version_txt(const char *text, struct check_cuda_version *out) {
  const char *p = strstr(text, "CUDA Version ");
  return p ? gw_check_parse_major_minor(p + 13, out) : (out->major = out->minor = -1, -1);
}

/* ---- what was found ---- */

struct runtime {
  char label[48];  /* "PyTorch 2.11.0+cu130" */
  char where[300]; /* path, for people */
  struct check_cuda_version v;
};

struct runtime_scan {
  struct runtime rt[3];
  int n;
  char notes[600]; /* quiet findings: CPU-only torch, probe timed out, libraries seen */
  int torch_cpu_only;
  char torch_cpu_label[80];
};

static void note_append(struct runtime_scan *s, const char *fmt, ...) GW_PRINTF(2, 3);
static void note_append(struct runtime_scan *s, const char *fmt, ...) {
  size_t used = strlen(s->notes);
  if (used && used + 2 < sizeof s->notes) {
    s->notes[used++] = ' ';
    s->notes[used] = '\0';
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->notes + used, sizeof s->notes - used, fmt, ap);
  va_end(ap);
}

/* The first (by name) file in dir starting with one of the prefixes. */
static int find_library(const char *root, const char *dir, const char *prefix_a, const char *prefix_b, char *out,
                        size_t cap) {
  char full[4096];
  if (gw_path_at(root, dir, full, sizeof full) != 0)
    return 0;
  struct dirent **names = NULL;
  int n = scandir(full, &names, NULL, alphasort);
  int found = 0;
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name;
    if (!found && (strncmp(name, prefix_a, strlen(prefix_a)) == 0 || strncmp(name, prefix_b, strlen(prefix_b)) == 0)) {
      snprintf(out, cap, "%s/%s", dir, name);
      found = 1;
    }
    free(names[i]);
  }
  free(names);
  return found;
}

/* libcudart and libcupti next to PyTorch: inside torch/lib (older wheels
 * bundle them) or in the NVIDIA wheels beside it (site-packages/nvidia/<pkg>/lib). */
static void find_torch_libraries(const char *root, const char *torch_file, char *out, size_t cap) {
  out[0] = '\0';
  char torch_dir[1024], site[1024];
  gw_strlcpy(torch_dir, torch_file, sizeof torch_dir);
  char *slash = strrchr(torch_dir, '/');
  if (!slash)
    return;
  *slash = '\0';
  gw_strlcpy(site, torch_dir, sizeof site);
  slash = strrchr(site, '/');
  if (!slash)
    return;
  *slash = '\0';

  char dirs[24][1200];
  int ndirs = 0;
  snprintf(dirs[ndirs++], sizeof dirs[0], "%s/lib", torch_dir);
  char nvidia[1200], full[4096];
  snprintf(nvidia, sizeof nvidia, "%s/nvidia", site);
  struct dirent **names = NULL;
  int n = gw_path_at(root, nvidia, full, sizeof full) == 0 ? scandir(full, &names, NULL, alphasort) : -1;
  for (int i = 0; i < n; i++) {
    if (names[i]->d_name[0] != '.' && ndirs < 24)
      snprintf(dirs[ndirs++], sizeof dirs[0], "%.1000s/%.100s/lib", nvidia, names[i]->d_name);
    free(names[i]);
  }
  free(names);

  char cudart[1400] = "", cupti[1400] = "";
  for (int d = 0; d < ndirs; d++) {
    if (!cudart[0])
      find_library(root, dirs[d], "libcudart.so", "libcudart-", cudart, sizeof cudart);
    if (!cupti[0])
      find_library(root, dirs[d], "libcupti.so", "libcupti-", cupti, sizeof cupti);
  }
  if (cudart[0] && cupti[0])
    snprintf(out, cap, _("runtime %s, CUPTI %s"), cudart, cupti);
  else if (cudart[0])
    snprintf(out, cap, _("runtime %s, no libcupti beside it"), cudart);
  else if (cupti[0])
    snprintf(out, cap, _("CUPTI %s, no libcudart beside it"), cupti);
}

static void scan_torch(struct check_ctx *ctx, struct runtime_scan *s) {
  const char *python = gw_check_program(ctx, ctx->opts->python, "GPUWHY_PYTHON", "python3");
  if (!python)
    return;
  char out[8192];
  char *argv[] = {(char *)python, "-c", (char *)torch_probe_code, "probe", NULL};
  int rc = gw_check_run_program(argv, NULL, PROBE_TIMEOUT_MS, out, sizeof out);
  if (rc == -1)
    return; /* no python here: quietly nothing */
  if (rc == -2) {
    note_append(s, _("Asking %s about PyTorch took over %d s and was stopped."), python, PROBE_TIMEOUT_MS / 1000);
    return;
  }
  const char *line = strstr(out, "gpuwhy-torch ");
  if (!line)
    return; /* no torch, or it failed to import: nothing to compare */
  char version[64], cuda[32], file[1024];
  const char *p = line + 13;
  size_t vlen = strcspn(p, " \n");
  const char *q = p + vlen;
  if (*q != ' ' || vlen >= sizeof version)
    return;
  memcpy(version, p, vlen);
  version[vlen] = '\0';
  q++;
  size_t clen = strcspn(q, " \n");
  if (q[clen] != ' ' || clen >= sizeof cuda)
    return;
  memcpy(cuda, q, clen);
  cuda[clen] = '\0';
  q += clen + 1;
  size_t flen = strcspn(q, "\n");
  if (gw_copy_token(file, sizeof file, q, flen) != 0)
    return;

  struct check_cuda_version v;
  if (gw_check_parse_major_minor(cuda, &v) != 0) {
    s->torch_cpu_only = 1;
    snprintf(s->torch_cpu_label, sizeof s->torch_cpu_label, "PyTorch %.40s", version);
    note_append(s, _("PyTorch %s at %s has no CUDA (torch.version.cuda is %s)."), version, file, cuda);
    return;
  }
  char libs[1200];
  find_torch_libraries(ctx->root, file, libs, sizeof libs);
  struct runtime *rt = &s->rt[s->n++];
  snprintf(rt->label, sizeof rt->label, "PyTorch %.38s", version);
  char *slash = strrchr(file, '/');
  if (slash && slash > file)
    *slash = '\0'; /* the package folder, not its __init__.py */
  snprintf(rt->where, sizeof rt->where, _("%.200s, through %.80s"), file, python);
  rt->v = v;
  if (libs[0])
    note_append(s, _("Beside PyTorch: %s."), libs);
}

static void scan_toolkit_files(struct check_ctx *ctx, struct runtime_scan *s) {
  char text[16384];
  struct check_cuda_version v;
  if (gw_read_file_at(ctx->root, "/usr/local/cuda/version.json", text, sizeof text, NULL) >= 0) {
    if (gw_check_parse_version_json(text, &v) == 0) {
      struct runtime *rt = &s->rt[s->n++];
      snprintf(rt->label, sizeof rt->label, "CUDA toolkit");
      snprintf(rt->where, sizeof rt->where, "/usr/local/cuda/version.json");
      rt->v = v;
    } else {
      note_append(s, _("/usr/local/cuda/version.json has no \"cuda\" object with a \"version\": not read."));
    }
  } else if (gw_read_file_at(ctx->root, "/usr/local/cuda/version.txt", text, sizeof text, NULL) >= 0 &&
             parse_version_txt(text, &v) == 0) {
    struct runtime *rt = &s->rt[s->n++];
    snprintf(rt->label, sizeof rt->label, "CUDA toolkit");
    snprintf(rt->where, sizeof rt->where, "/usr/local/cuda/version.txt");
    rt->v = v;
  }
}

static void scan_nvcc(struct check_ctx *ctx, struct runtime_scan *s) {
  const char *nvcc = gw_check_program(ctx, ctx->opts->nvcc, "GPUWHY_NVCC", "nvcc");
  if (!nvcc)
    return;
  char out[4096];
  char *argv[] = {(char *)nvcc, "-V", NULL};
  int rc = gw_check_run_program(argv, NULL, NVCC_TIMEOUT_MS, out, sizeof out);
  if (rc == -1 && ctx->live && strcmp(nvcc, "nvcc") == 0) {
    /* Not on PATH: the toolkit's usual home. */
    nvcc = "/usr/local/cuda/bin/nvcc";
    argv[0] = (char *)nvcc;
    rc = gw_check_run_program(argv, NULL, NVCC_TIMEOUT_MS, out, sizeof out);
  }
  struct check_cuda_version v;
  if (rc != 0 || gw_check_parse_nvcc(out, &v) != 0)
    return;
  struct runtime *rt = &s->rt[s->n++];
  snprintf(rt->label, sizeof rt->label, "nvcc");
  if (strchr(nvcc, '/'))
    snprintf(rt->where, sizeof rt->where, "%s", nvcc);
  else
    snprintf(rt->where, sizeof rt->where, _("%s from PATH"), nvcc);
  rt->v = v;
}

void gw_check_cuda_runtime(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (!ctx->have_driver)
    return; /* the driver item already says all there is */
  struct runtime_scan s;
  memset(&s, 0, sizeof s);
  scan_torch(ctx, &s);
  scan_toolkit_files(ctx, &s);
  scan_nvcc(ctx, &s);

  int dv = ctx->driver.cuda_driver_version;
  int dmaj = dv / 1000, dmin = (dv % 1000) / 10;
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  if (dv > 0) {
    gw_check_reason(it, _("The driver supports CUDA up to %d.%d."), dmaj, dmin);
    gw_check_value(it, "driver_cuda_version", dv);
  } else {
    gw_check_reason(it, _("The driver did not say which CUDA version it supports."));
  }
  if (s.n == 0 && !s.torch_cpu_only) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("No CUDA runtime version could be read to compare: no PyTorch with CUDA, no toolkit "
                          "version in /usr/local/cuda, no nvcc."));
  }
  int newer_major = 0, newer_minor = 0;
  for (int i = 0; i < s.n; i++) {
    const struct runtime *rt = &s.rt[i];
    gw_check_reason(it, _("%s (%s) uses CUDA %d.%d."), rt->label, rt->where, rt->v.major, rt->v.minor);
    if (i == 0 && strncmp(rt->label, "PyTorch", 7) == 0)
      gw_check_value(it, "torch_cuda_version", rt->v.major * 1000 + rt->v.minor * 10);
    if (dv <= 0)
      continue;
    if (rt->v.major > dmaj) {
      newer_major = 1;
      gw_check_reason(it,
                      _("That is a newer major version than the driver's %d.%d: it will not start "
                        "(\"CUDA driver version is insufficient\")."),
                      dmaj, dmin);
    } else if (rt->v.major == dmaj && rt->v.minor > dmin) {
      newer_minor = 1;
      gw_check_reason(it,
                      _("That is newer than the driver's %d.%d: it runs through minor-version compatibility, "
                        "but PTX from the newer toolkit cannot be JIT-compiled and newer features fail."),
                      dmaj, dmin);
    }
  }
  if (s.notes[0])
    gw_check_reason(it, "%s", s.notes);
  if (s.torch_cpu_only) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_fix(it,
                 _("If this is the Python you train with, install a CUDA build of PyTorch (for CUDA %d.%d or "
                   "older; pytorch.org gives the command)."),
                 dmaj, dmin);
  }
  if (newer_major || newer_minor) {
    gw_check_raise(it, newer_major ? GW_CHECK_FAIL : GW_CHECK_WARN);
    gw_check_fix(it,
                 _("Update the NVIDIA driver to one that supports the newer CUDA, or use builds for CUDA %d.%d "
                   "or older (PyTorch's install page lists one index per CUDA version)."),
                 dmaj, dmin);
  }
}
