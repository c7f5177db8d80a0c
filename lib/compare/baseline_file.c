/* Baseline files: writing and reading a run summary as JSON. */
#include "compare/baseline_file.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ledger.h"
#include "compare/compare_render.h"
#include "core/json_path.h"
#include "core/json_write.h"

/* unknown is null; whole values as integers, others round-trip exactly */
static void jnum(FILE *out, double v) {
  gw_json_write_number(out, v);
}

static void kv_num(FILE *out, const char *key, double v) {
  fprintf(out, "  \"%s\": ", key);
  jnum(out, v);
  fputs(",\n", out);
}

static void kv_str(FILE *out, const char *indent, const char *key, const char *v) {
  fprintf(out, "%s\"%s\": ", indent, key);
  gw_json_write_string(out, v);
  fputs(",\n", out);
}

/* The summary's measurements a baseline keeps as they are (the step
 * statistics, recomputed from the step times, are not among them): written
 * and read back through this one list, in this order. */
static const struct saved_field {
  const char *key;
  size_t offset;
  int is_flag; /* an int written as true/false; else a double, null when unknown */
} saved_as_is[] = {
    {"window_s", offsetof(struct gw_run_summary, window_s), 0},
    {"sm_mean_pct", offsetof(struct gw_run_summary, sm_mean_pct), 0},
    {"sm_from_util", offsetof(struct gw_run_summary, sm_from_util), 1},
    {"util_mean_pct", offsetof(struct gw_run_summary, util_mean_pct), 0},
    {"power_mean_w", offsetof(struct gw_run_summary, power_mean_w), 0},
    {"mem_used_peak_bytes", offsetof(struct gw_run_summary, mem_used_peak_bytes), 0},
    {"mem_total_bytes", offsetof(struct gw_run_summary, mem_total_bytes), 0},
    {"mfu_pct", offsetof(struct gw_run_summary, mfu_pct), 0},
    {"achieved_tflops", offsetof(struct gw_run_summary, achieved_tflops), 0},
    {"has_gpu_data", offsetof(struct gw_run_summary, has_gpu_data), 1},
    {"ledger_estimated", offsetof(struct gw_run_summary, ledger_estimated), 1},
    {"active_s", offsetof(struct gw_run_summary, active_s), 0},
};
#define NSAVED_AS_IS (sizeof saved_as_is / sizeof saved_as_is[0])

static const void *saved_value(const struct gw_run_summary *s, const struct saved_field *fd) {
  return (const char *)s + fd->offset;
}
static void *saved_slot(struct gw_run_summary *s, const struct saved_field *fd) {
  return (char *)s + fd->offset;
}

void gw_baseline_file_write(FILE *out, const struct gw_run_summary *s, const char *name, int64_t saved_ns) {
  fprintf(out, "{\n  \"schema\": \"%s/%d\",\n  \"schema_version\": %d,\n", GW_BASELINE_SCHEMA,
          GW_BASELINE_SCHEMA_VERSION, GW_BASELINE_SCHEMA_VERSION);
  kv_str(out, "  ", "name", name);
  /* epoch nanoseconds are above 2^53: a string, read back exactly */
  fputs("  \"saved_ns\": ", out);
  gw_json_write_int(out, (long long)saved_ns);
  fputs(",\n", out);
  kv_str(out, "  ", "recording", s->path);
  kv_str(out, "  ", "recording_name", s->name);
  kv_str(out, "  ", "step_source", gw_step_source_id(s->step_source));
  kv_str(out, "  ", "step_log", s->step_log);
  fprintf(out, "  \"steps\": %zu,\n", s->nsteps);
  kv_num(out, "step_median_s", s->step_median_s);
  kv_num(out, "step_p90_s", s->step_p90_s);
  kv_num(out, "step_p90_over_p50", s->step_p90_over_p50);
  kv_num(out, "step_cv", s->step_cv);
  kv_num(out, "steps_per_s", s->steps_per_s);
  kv_num(out, "samples_per_step", s->samples_per_step);
  kv_str(out, "  ", "samples_per_step_from", s->samples_per_step_from);
  kv_num(out, "samples_per_s", s->samples_per_s);
  fprintf(out, "  \"samples_per_s_reported\": %s,\n", s->samples_per_s_reported ? "true" : "false");
  for (size_t i = 0; i < NSAVED_AS_IS; i++) {
    const struct saved_field *fd = &saved_as_is[i];
    if (fd->is_flag)
      fprintf(out, "  \"%s\": %s,\n", fd->key, *(const int *)saved_value(s, fd) ? "true" : "false");
    else
      kv_num(out, fd->key, *(const double *)saved_value(s, fd));
  }
  fputs("  \"ledger_share_of_active\": {", out);
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    fprintf(out, "%s\"%s\": ", r ? ", " : "", gw_ledger_row_id((enum gw_ledger_row)r));
    jnum(out, s->ledger_share[r]);
  }
  fputs("},\n", out);
  kv_num(out, "lost_share", s->lost_share);
  kv_str(out, "  ", "verdict", s->verdict);
  fputs("  \"findings\": [", out);
  gw_compare_json_findings(s, out);
  fputs("],\n  \"setup\": {\n    \"command\": [", out);
  for (int i = 0; i < s->setup.argc; i++) {
    fputs(i ? ", " : "", out);
    gw_json_write_string(out, s->setup.argv[i]);
  }
  fputs("],\n    \"env\": {", out);
  for (int i = 0; i < s->setup.nenv; i++) {
    fputs(i ? ", " : "", out);
    gw_json_write_string(out, s->setup.env[i].name);
    fputs(": ", out);
    gw_json_write_string(out, s->setup.env[i].value);
  }
  fputs("},\n", out);
  kv_str(out, "    ", "stem", s->setup.stem);
  kv_str(out, "    ", "host", s->setup.host);
  kv_str(out, "    ", "driver", s->setup.driver);
  kv_str(out, "    ", "gpu", s->setup.gpu);
  kv_str(out, "    ", "change", s->setup.change);
  fputs("    \"change_from\": ", out);
  gw_json_write_string(out, s->setup.change_from);
  fputs("\n  },\n  \"step_times_s\": [", out);
  for (size_t i = 0; i < s->nsteps; i++) {
    fputs(i ? (i % 8 ? ", " : ",\n    ") : "\n    ", out);
    jnum(out, s->step_s[i]);
  }
  fputs(s->nsteps ? "\n  ]\n}\n" : "]\n}\n", out);
}

static gw_status check_schema(const struct gw_json_doc *doc, struct gw_err *err) {
  struct gw_json_value root = gw_json_root(doc);
  char schema[64] = "";
  size_t stem = strlen(GW_BASELINE_SCHEMA);
  /* "gpuwhy.baseline" (version 1) or "gpuwhy.baseline/N" */
  if (gw_json_string(root, "schema", schema, sizeof schema) != 0 || strncmp(schema, GW_BASELINE_SCHEMA, stem) != 0 ||
      (schema[stem] != '\0' && schema[stem] != '/')) {
    gw_err_set(err, "%s: not a gpuwhy baseline (field \"schema\" is not \"%s\")", doc->path, GW_BASELINE_SCHEMA);
    return GW_EINPUT;
  }
  double version = gw_json_number(root, "schema_version");
  if (isnan(version) || version < 1 || version > GW_BASELINE_SCHEMA_VERSION) {
    gw_err_set(err, "%s: baseline schema_version %g, this gpuwhy reads 1 to %d%s", doc->path, version,
               GW_BASELINE_SCHEMA_VERSION, version > GW_BASELINE_SCHEMA_VERSION ? " (saved by a newer gpuwhy)" : "");
    return GW_EINPUT;
  }
  return GW_OK;
}

static enum gw_step_source source_from_id(const char *id) {
  if (strcmp(id, "step_table") == 0)
    return GW_STEPS_TABLE;
  if (strcmp(id, "program_log") == 0)
    return GW_STEPS_LOG;
  if (strcmp(id, "activity") == 0)
    return GW_STEPS_ACTIVITY;
  return GW_STEPS_NONE;
}

static int json_true(struct gw_json_value root, const char *path) {
  return gw_json_type_at(root, path) == GW_JSON_TRUE;
}

static gw_status read_step_times(const struct gw_json_doc *doc, struct gw_run_summary *s, struct gw_err *err) {
  struct gw_json_value times = gw_json_get(gw_json_root(doc), "step_times_s");
  if (times.type != GW_JSON_ABSENT && times.type != GW_JSON_ARRAY) {
    gw_err_set(err, "%s: step_times_s is not an array of seconds", doc->path);
    return GW_EINPUT;
  }
  struct gw_json_value *m = NULL;
  size_t n = gw_json_members(times, &m);
  s->step_s = gw_xcalloc(n ? n : 1, sizeof *s->step_s);
  gw_status rc = GW_OK;
  for (size_t i = 0; i < n; i++) {
    double v = gw_json_number(m[i], "");
    if (!(v > 0)) {
      gw_err_set(err, "%s: step_times_s[%zu] is not a positive number of seconds", doc->path, i);
      rc = GW_EINPUT;
      break;
    }
    s->step_s[s->nsteps++] = v;
  }
  free(m);
  return rc;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const struct gw_setup_kv *)a)->name, ((const struct gw_setup_kv *)b)->name);
}

/* A command word or an environment value: a string as it is, a number as written. */
static void member_text(struct gw_json_value m, char *buf, size_t cap) {
  buf[0] = '\0';
  if (gw_json_string(m, "", buf, cap) != 0 && m.type == GW_JSON_NUMBER) {
    size_t len = m.end - m.start < cap - 1 ? m.end - m.start : cap - 1;
    memcpy(buf, m.doc->text + m.start, len);
    buf[len] = '\0';
  }
}

static void read_setup(const struct gw_json_doc *doc, struct gw_run_setup *f) {
  struct gw_json_value root = gw_json_root(doc);
  struct gw_json_value *m = NULL;
  char key[1024], text[4096];
  size_t n = gw_json_members(gw_json_get(root, "setup.command"), &m);
  for (size_t i = 0; i < n; i++) {
    member_text(m[i], text, sizeof text);
    gw_run_setup_add_arg(f, text);
  }
  free(m);
  n = gw_json_members(gw_json_get(root, "setup.env"), &m);
  int first_env = f->nenv;
  for (size_t i = 0; i < n; i++) {
    if (gw_json_key(m[i], key, sizeof key) != 0)
      continue; /* an array where an object belongs */
    member_text(m[i], text, sizeof text);
    gw_run_setup_add_env(f, key, text);
  }
  free(m);
  if (f->nenv > first_env) /* the setup keeps them sorted */
    qsort(f->env + first_env, (size_t)(f->nenv - first_env), sizeof *f->env, by_name);
  gw_json_string(root, "setup.stem", f->stem, sizeof f->stem);
  gw_json_string(root, "setup.host", f->host, sizeof f->host);
  gw_json_string(root, "setup.driver", f->driver, sizeof f->driver);
  gw_json_string(root, "setup.gpu", f->gpu, sizeof f->gpu);
  gw_json_string(root, "setup.change", f->change, sizeof f->change);
  gw_json_string(root, "setup.change_from", f->change_from, sizeof f->change_from);
}

gw_status gw_baseline_file_read(const char *path, struct gw_run_summary *s, struct gw_err *err) {
  struct gw_json_doc doc;
  gw_status rc = gw_json_doc_load(path, GW_BASELINE_MAX_BYTES, &doc, err);
  if (rc)
    return rc;
  if ((rc = check_schema(&doc, err)) || (rc = read_step_times(&doc, s, err))) {
    gw_json_doc_free(&doc);
    return rc;
  }
  s->from_baseline = 1;
  struct gw_json_value root = gw_json_root(&doc);
  char buf[320];
  if (gw_json_string(root, "name", buf, sizeof buf) == 0 && buf[0])
    gw_strlcpy(s->name, buf, sizeof s->name);
  if (gw_json_string(root, "step_source", buf, sizeof buf) == 0)
    s->step_source = s->nsteps ? source_from_id(buf) : GW_STEPS_NONE;
  gw_json_string(root, "step_log", s->step_log, sizeof s->step_log);
  s->samples_per_step = gw_json_number(root, "samples_per_step");
  gw_json_string(root, "samples_per_step_from", s->samples_per_step_from, sizeof s->samples_per_step_from);
  s->samples_per_s = gw_json_number(root, "samples_per_s");
  s->samples_per_s_reported = json_true(root, "samples_per_s_reported");
  /* step statistics are recomputed from the times, the rest is as saved */
  gw_run_summary_step_stats(s);
  /* a number absent (mfu_pct, achieved_tflops before MFU) is unknown, NAN */
  for (size_t i = 0; i < NSAVED_AS_IS; i++) {
    const struct saved_field *fd = &saved_as_is[i];
    if (fd->is_flag)
      *(int *)saved_slot(s, fd) = json_true(root, fd->key);
    else
      *(double *)saved_slot(s, fd) = gw_json_number(root, fd->key);
  }
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    char jpath[96];
    snprintf(jpath, sizeof jpath, "ledger_share_of_active.%s", gw_ledger_row_id((enum gw_ledger_row)r));
    s->ledger_share[r] = gw_json_number(root, jpath);
  }
  s->lost_share = gw_json_number(root, "lost_share");
  gw_json_string(root, "verdict", s->verdict, sizeof s->verdict);
  struct gw_json_value *m = NULL;
  size_t n = gw_json_members(gw_json_get(root, "findings"), &m);
  for (size_t i = 0; i < n && s->nfindings < GW_MAX_FINDINGS; i++) {
    struct gw_finding_brief *f = &s->findings[s->nfindings++];
    if (gw_json_string(m[i], "class", f->class_id, sizeof f->class_id) != 0)
      gw_strlcpy(f->class_id, "?", sizeof f->class_id);
    f->share_of_lost = gw_json_number(m[i], "share_of_lost"); /* null: unknown */
    f->confidence = gw_json_number(m[i], "confidence");
  }
  free(m);
  read_setup(&doc, &s->setup);
  gw_json_doc_free(&doc);
  return GW_OK;
}

gw_status gw_baseline_file_info(const char *path, struct gw_baseline_info *info, struct gw_err *err) {
  memset(info, 0, sizeof *info);
  struct gw_json_doc doc;
  gw_status rc = gw_json_doc_load(path, GW_BASELINE_MAX_BYTES, &doc, err);
  if (rc)
    return rc;
  if ((rc = check_schema(&doc, err)) == GW_OK) {
    struct gw_json_value root = gw_json_root(&doc);
    gw_json_string(root, "name", info->name, sizeof info->name);
    gw_json_string(root, "recording", info->recording, sizeof info->recording);
    gw_json_string(root, "step_source", info->step_source, sizeof info->step_source);
    /* a string since version 2 (above 2^53), a number in version 1 */
    char saved_text[32] = "";
    double saved = gw_json_number(root, "saved_ns");
    if (isnan(saved) && gw_json_string(root, "saved_ns", saved_text, sizeof saved_text) == 0)
      saved = strtod(saved_text, NULL);
    /* out-of-range doubles (a hand-edited file) must not reach the casts */
    info->saved_ns = saved >= 0 && saved < 9e18 ? (int64_t)saved : 0;
    info->samples_per_s = gw_json_number(root, "samples_per_s");
    info->steps_per_s = gw_json_number(root, "steps_per_s");
    info->step_median_s = gw_json_number(root, "step_median_s");
    double n = gw_json_number(root, "steps");
    info->nsteps = n >= 0 && n < 1e15 ? (long)n : 0;
  }
  gw_json_doc_free(&doc);
  return rc;
}
