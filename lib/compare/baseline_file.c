/* Baseline files: writing and reading a run summary as JSON. */
#include "compare/baseline_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ledger.h"
#include "store/json_read.h"
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
  kv_num(out, "window_s", s->window_s);
  kv_num(out, "sm_mean_pct", s->sm_mean_pct);
  fprintf(out, "  \"sm_from_util\": %s,\n", s->sm_from_util ? "true" : "false");
  kv_num(out, "util_mean_pct", s->util_mean_pct);
  kv_num(out, "power_mean_w", s->power_mean_w);
  kv_num(out, "mem_used_peak_bytes", s->mem_used_peak_bytes);
  kv_num(out, "mem_total_bytes", s->mem_total_bytes);
  kv_num(out, "mfu_pct", s->mfu_pct);
  kv_num(out, "achieved_tflops", s->achieved_tflops);
  fprintf(out, "  \"has_gpu_data\": %s,\n", s->has_gpu_data ? "true" : "false");
  fprintf(out, "  \"ledger_estimated\": %s,\n", s->ledger_estimated ? "true" : "false");
  kv_num(out, "active_s", s->active_s);
  fputs("  \"ledger_share_of_active\": {", out);
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    fprintf(out, "%s\"%s\": ", r ? ", " : "", gw_ledger_row_id((enum gw_ledger_row)r));
    jnum(out, s->ledger_share[r]);
  }
  fputs("},\n", out);
  kv_num(out, "lost_share", s->lost_share);
  kv_str(out, "  ", "verdict", s->verdict);
  fputs("  \"findings\": [", out);
  for (int i = 0; i < s->nfindings; i++) {
    fprintf(out, "%s{\"class\": ", i ? ", " : "");
    gw_json_write_string(out, s->findings[i].class_id);
    fputs(", \"share_of_lost\": ", out);
    jnum(out, s->findings[i].share_of_lost);
    fputs(", \"confidence\": ", out);
    jnum(out, s->findings[i].confidence);
    fputs("}", out);
  }
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
  char schema[64] = "";
  size_t stem = strlen(GW_BASELINE_SCHEMA);
  /* "gpuwhy.baseline" (version 1) or "gpuwhy.baseline/N" */
  if (gw_json_string(doc, "$.schema", schema, sizeof schema) != 0 || strncmp(schema, GW_BASELINE_SCHEMA, stem) != 0 ||
      (schema[stem] != '\0' && schema[stem] != '/')) {
    gw_err_set(err, "%s: not a gpuwhy baseline (field \"schema\" is not \"%s\")", doc->path, GW_BASELINE_SCHEMA);
    return GW_EINPUT;
  }
  double version = gw_json_number(doc, "$.schema_version");
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

static int json_true(const struct gw_json_doc *doc, const char *jpath) {
  char type[16];
  return gw_json_type(doc, jpath, type, sizeof type) == 0 && strcmp(type, "true") == 0;
}

static gw_status read_step_times(const struct gw_json_doc *doc, struct gw_run_summary *s, struct gw_err *err) {
  static const char *const member[] = {"$"};
  struct gw_json_members *st = gw_json_members_open(doc, "$.step_times_s", member, 1, 0);
  if (!st) {
    gw_err_set(err, "%s: cannot read step_times_s", doc->path);
    return GW_EINPUT;
  }
  size_t cap = 256;
  s->step_s = gw_xcalloc(cap, sizeof *s->step_s);
  gw_status rc = GW_OK;
  while (gw_json_members_next(st)) {
    const char *type = gw_json_members_type(st, 0);
    double v = gw_json_members_number(st, 0);
    if (!type || (strcmp(type, "real") != 0 && strcmp(type, "integer") != 0) || !(v > 0)) {
      gw_err_set(err, "%s: step_times_s[%d] is not a positive number of seconds", doc->path, gw_json_members_index(st));
      rc = GW_EINPUT;
      break;
    }
    if (s->nsteps == cap) {
      cap *= 2;
      s->step_s = gw_xrealloc(s->step_s, cap * sizeof *s->step_s);
    }
    s->step_s[s->nsteps++] = v;
  }
  gw_json_members_close(st);
  return rc;
}

static void read_setup(const struct gw_json_doc *doc, struct gw_run_setup *f) {
  static const char *const member[] = {"$"};
  struct gw_json_members *st = gw_json_members_open(doc, "$.setup.command", member, 1, 1);
  while (st && gw_json_members_next(st)) {
    const char *v = gw_json_members_text(st, 0);
    gw_run_setup_add_arg(f, v ? v : "");
  }
  gw_json_members_close(st);
  st = gw_json_members_open(doc, "$.setup.env", member, 1, 1);
  while (st && gw_json_members_next(st)) {
    const char *k = gw_json_members_key(st), *v = gw_json_members_text(st, 0);
    gw_run_setup_add_env(f, k ? k : "", v ? v : "");
  }
  gw_json_members_close(st);
  gw_json_string(doc, "$.setup.stem", f->stem, sizeof f->stem);
  gw_json_string(doc, "$.setup.host", f->host, sizeof f->host);
  gw_json_string(doc, "$.setup.driver", f->driver, sizeof f->driver);
  gw_json_string(doc, "$.setup.gpu", f->gpu, sizeof f->gpu);
  gw_json_string(doc, "$.setup.change", f->change, sizeof f->change);
  gw_json_string(doc, "$.setup.change_from", f->change_from, sizeof f->change_from);
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
  char buf[320];
  if (gw_json_string(&doc, "$.name", buf, sizeof buf) == 0 && buf[0])
    gw_strlcpy(s->name, buf, sizeof s->name);
  if (gw_json_string(&doc, "$.step_source", buf, sizeof buf) == 0)
    s->step_source = s->nsteps ? source_from_id(buf) : GW_STEPS_NONE;
  gw_json_string(&doc, "$.step_log", s->step_log, sizeof s->step_log);
  s->samples_per_step = gw_json_number(&doc, "$.samples_per_step");
  gw_json_string(&doc, "$.samples_per_step_from", s->samples_per_step_from, sizeof s->samples_per_step_from);
  s->samples_per_s = gw_json_number(&doc, "$.samples_per_s");
  s->samples_per_s_reported = json_true(&doc, "$.samples_per_s_reported");
  /* step statistics are recomputed from the times, the rest is as saved */
  gw_run_summary_step_stats(s);
  s->window_s = gw_json_number(&doc, "$.window_s");
  s->sm_mean_pct = gw_json_number(&doc, "$.sm_mean_pct");
  s->sm_from_util = json_true(&doc, "$.sm_from_util");
  s->util_mean_pct = gw_json_number(&doc, "$.util_mean_pct");
  s->power_mean_w = gw_json_number(&doc, "$.power_mean_w");
  s->mem_used_peak_bytes = gw_json_number(&doc, "$.mem_used_peak_bytes");
  s->mem_total_bytes = gw_json_number(&doc, "$.mem_total_bytes");
  /* absent in baselines saved before MFU: unknown, as NAN */
  s->mfu_pct = gw_json_number(&doc, "$.mfu_pct");
  s->achieved_tflops = gw_json_number(&doc, "$.achieved_tflops");
  s->has_gpu_data = json_true(&doc, "$.has_gpu_data");
  s->ledger_estimated = json_true(&doc, "$.ledger_estimated");
  s->active_s = gw_json_number(&doc, "$.active_s");
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    char jpath[96];
    snprintf(jpath, sizeof jpath, "$.ledger_share_of_active.%s", gw_ledger_row_id((enum gw_ledger_row)r));
    s->ledger_share[r] = gw_json_number(&doc, jpath);
  }
  s->lost_share = gw_json_number(&doc, "$.lost_share");
  gw_json_string(&doc, "$.verdict", s->verdict, sizeof s->verdict);
  static const char *const finding[] = {"$.class", "$.share_of_lost", "$.confidence"};
  struct gw_json_members *st = gw_json_members_open(&doc, "$.findings", finding, 3, 0);
  while (st && gw_json_members_next(st) && s->nfindings < GW_MAX_FINDINGS) {
    struct gw_finding_brief *f = &s->findings[s->nfindings++];
    const char *c = gw_json_members_text(st, 0);
    gw_strlcpy(f->class_id, c ? c : "?", sizeof f->class_id);
    f->share_of_lost = gw_json_members_null(st, 1) ? NAN : gw_json_members_number(st, 1);
    f->confidence = gw_json_members_null(st, 2) ? NAN : gw_json_members_number(st, 2);
  }
  gw_json_members_close(st);
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
    gw_json_string(&doc, "$.name", info->name, sizeof info->name);
    gw_json_string(&doc, "$.recording", info->recording, sizeof info->recording);
    gw_json_string(&doc, "$.step_source", info->step_source, sizeof info->step_source);
    /* a string since version 2 (above 2^53), a number in version 1 */
    char saved_text[32] = "";
    double saved = gw_json_number(&doc, "$.saved_ns");
    if (isnan(saved) && gw_json_string(&doc, "$.saved_ns", saved_text, sizeof saved_text) == 0)
      saved = strtod(saved_text, NULL);
    /* out-of-range doubles (a hand-edited file) must not reach the casts */
    info->saved_ns = saved >= 0 && saved < 9e18 ? (int64_t)saved : 0;
    info->samples_per_s = gw_json_number(&doc, "$.samples_per_s");
    info->steps_per_s = gw_json_number(&doc, "$.steps_per_s");
    info->step_median_s = gw_json_number(&doc, "$.step_median_s");
    double n = gw_json_number(&doc, "$.steps");
    info->nsteps = n >= 0 && n < 1e15 ? (long)n : 0;
  }
  gw_json_doc_free(&doc);
  return rc;
}
