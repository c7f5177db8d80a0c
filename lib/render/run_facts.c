#include "run_facts.h"

#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "store/store.h"

/* Append n bytes to out[*len], keeping room for the NUL; returns 0 when it did not fit. */
static int append(char *out, size_t cap, size_t *len, const char *s, size_t n) {
  if (*len + n + 1 > cap)
    return 0;
  memcpy(out + *len, s, n);
  *len += n;
  out[*len] = '\0';
  return 1;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Decode one JSON string starting after its opening quote into arg (UTF-8).
 * Returns a pointer after the closing quote, or NULL when malformed. */
static const char *json_string(const char *p, char *arg, size_t cap) {
  size_t len = 0;
  arg[0] = '\0';
  while (*p && *p != '"') {
    char c = *p++;
    if (c != '\\') {
      append(arg, cap, &len, &c, 1);
      continue;
    }
    char e = *p++;
    const char *simple = NULL;
    switch (e) {
    case '"':
      simple = "\"";
      break;
    case '\\':
      simple = "\\";
      break;
    case '/':
      simple = "/";
      break;
    case 'n':
      simple = "\n";
      break;
    case 't':
      simple = "\t";
      break;
    case 'r':
      simple = "\r";
      break;
    case 'b':
      simple = "\b";
      break;
    case 'f':
      simple = "\f";
      break;
    case 'u': {
      unsigned cp = 0;
      for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
          return NULL;
        cp = cp << 4 | (unsigned)h;
      }
      p += 4;
      char u[4];
      size_t n;
      if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
      } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
      } else { /* surrogate halves stay as they are; the HTML writer repairs them */
        u[0] = (char)(0xe0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
      }
      append(arg, cap, &len, u, n);
      continue;
    }
    default:
      return NULL;
    }
    append(arg, cap, &len, simple, 1);
  }
  return *p == '"' ? p + 1 : NULL;
}

static int needs_quotes(const char *s) {
  if (!*s)
    return 1;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          strchr("-_./=:,+@%", *s) || (unsigned char)*s >= 0x80))
      return 1;
  return 0;
}

void gw_command_for_people(const char *json, char *out, size_t cap) {
  if (cap == 0)
    return;
  out[0] = '\0';
  if (!json)
    return;
  const char *p = json;
  while (*p == ' ')
    p++;
  size_t len = 0;
  char arg[1024];
  if (*p++ != '[')
    goto raw;
  for (int first = 1;; first = 0) {
    while (*p == ' ' || *p == '\n')
      p++;
    if (*p == ']')
      return;
    if (!first) {
      if (*p++ != ',')
        goto raw;
      while (*p == ' ')
        p++;
    }
    if (*p++ != '"' || !(p = json_string(p, arg, sizeof arg)))
      goto raw;
    if (!first)
      append(out, cap, &len, " ", 1);
    if (!needs_quotes(arg)) {
      append(out, cap, &len, arg, strlen(arg));
      continue;
    }
    /* single quotes; an embedded one becomes '\'' */
    append(out, cap, &len, "'", 1);
    for (const char *a = arg; *a; a++) {
      if (*a == '\'')
        append(out, cap, &len, "'\\''", 4);
      else
        append(out, cap, &len, a, 1);
    }
    append(out, cap, &len, "'", 1);
  }
raw:
  gw_strlcpy(out, json, cap);
}

const struct gw_gpu_facts *gw_run_facts_gpu(const struct gw_run_facts *f, int gpu) {
  for (int i = 0; i < f->ngpus; i++)
    if (f->gpus[i].gpu == gpu)
      return &f->gpus[i];
  return NULL;
}

static void text_col(sqlite3_stmt *s, int i, char *dst, size_t cap) {
  const unsigned char *t = sqlite3_column_text(s, i);
  gw_strlcpy(dst, t ? (const char *)t : "", cap);
}

static double num_col(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static void read_run(sqlite3 *db, struct gw_run_facts *f) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT * FROM run ORDER BY id LIMIT 1", -1, &s, NULL) != SQLITE_OK)
    return;
  if (sqlite3_step(s) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(s); i++) {
      const char *c = sqlite3_column_name(s, i);
      int is_null = sqlite3_column_type(s, i) == SQLITE_NULL;
      if (strcmp(c, "source") == 0)
        text_col(s, i, f->source, sizeof f->source);
      else if (strcmp(c, "command") == 0 && !is_null)
        gw_command_for_people((const char *)sqlite3_column_text(s, i), f->command, sizeof f->command);
      else if (strcmp(c, "cwd") == 0)
        text_col(s, i, f->cwd, sizeof f->cwd);
      else if (strcmp(c, "hostname") == 0)
        text_col(s, i, f->hostname, sizeof f->hostname);
      else if (strcmp(c, "kernel") == 0)
        text_col(s, i, f->kernel, sizeof f->kernel);
      else if (strcmp(c, "cpu_model") == 0)
        text_col(s, i, f->cpu_model, sizeof f->cpu_model);
      else if (strcmp(c, "driver_version") == 0)
        text_col(s, i, f->driver_version, sizeof f->driver_version);
      else if (strcmp(c, "nvml_version") == 0)
        text_col(s, i, f->nvml_version, sizeof f->nvml_version);
      else if (strcmp(c, "gpu_note") == 0)
        text_col(s, i, f->gpu_note, sizeof f->gpu_note);
      else if (strcmp(c, "cuda_driver_version") == 0)
        f->cuda_driver_version = sqlite3_column_int(s, i);
      else if (strcmp(c, "logical_cpus") == 0)
        f->logical_cpus = sqlite3_column_int(s, i);
      else if (strcmp(c, "physical_cores") == 0)
        f->physical_cores = sqlite3_column_int(s, i);
      else if (strcmp(c, "interval_ms") == 0)
        f->interval_ms = sqlite3_column_int(s, i);
      else if (strcmp(c, "target_pid") == 0)
        f->target_pid = sqlite3_column_int(s, i);
      else if (strcmp(c, "mem_total_bytes") == 0)
        f->mem_total_bytes = num_col(s, i);
      else if (strcmp(c, "started_ns") == 0)
        f->started_ns = sqlite3_column_int64(s, i);
      else if (strcmp(c, "ended_ns") == 0)
        f->ended_ns = sqlite3_column_int64(s, i);
      else if (strcmp(c, "exit_status") == 0)
        f->exit_status = is_null ? -1 : sqlite3_column_int(s, i);
    }
  }
  sqlite3_finalize(s);
}

static void read_gpus(sqlite3 *db, struct gw_run_facts *f) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db,
                         "SELECT gpu, uuid, name, pci_bus_id, mem_total_bytes, power_default_limit_mw,"
                         " sm_clock_max_mhz FROM gpu ORDER BY gpu",
                         -1, &s, NULL) != SQLITE_OK)
    return;
  while (f->ngpus < GW_FACTS_MAX_GPUS && sqlite3_step(s) == SQLITE_ROW) {
    struct gw_gpu_facts *g = &f->gpus[f->ngpus++];
    g->gpu = sqlite3_column_int(s, 0);
    text_col(s, 1, g->uuid, sizeof g->uuid);
    text_col(s, 2, g->name, sizeof g->name);
    text_col(s, 3, g->pci_bus_id, sizeof g->pci_bus_id);
    g->mem_total_bytes = num_col(s, 4);
    g->power_default_limit_mw = num_col(s, 5);
    g->sm_clock_max_mhz = num_col(s, 6);
  }
  sqlite3_finalize(s);
}

gw_status gw_run_facts_load(const char *path, struct gw_run_facts *out, struct gw_err *err) {
  memset(out, 0, sizeof *out);
  out->exit_status = -1;
  out->mem_total_bytes = NAN;
  struct gw_store *st = NULL;
  gw_status rc = gw_store_open(&st, path, 1, err);
  if (rc)
    return rc;
  sqlite3 *db = gw_store_db(st);
  read_run(db, out);
  read_gpus(db, out);
  gw_store_close(st);
  return GW_OK;
}
