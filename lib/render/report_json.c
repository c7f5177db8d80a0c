/* JSON report, schema documented in docs/report-json.md. Numbers that are
 * unknown are written as null, never as 0. */
#include <math.h>
#include <string.h>

#include "analysis/multi_gpu.h"
#include "analysis/rules.h"
#include "analysis/sm_fill.h"
#include "core/json_write.h"
#include "render/mfu_facts.h"
#include "render/class_text.h"
#include "render/evidence_text.h"
#include "render/label_text.h"
#include "render/note_text.h"
#include "render/fix_text.h"
#include "render/report_render.h"
#include "render/step_facts.h"

static void jstr(FILE *out, const char *s) {
  gw_json_write_string(out, s);
}

/* unknown is null; whole values as integers, others round-trip exactly */
static void jnum(FILE *out, double v) {
  gw_json_write_number(out, v);
}

/* An evidence value: whole numbers (counts, GPUs, MHz) without a fraction,
 * others exact; unknown is null. */
static void jvalue(FILE *out, const struct gw_evidence_value *v) {
  if (v->unit == GW_UNIT_PHRASE) /* English: the phrase's message, untranslated */
    jstr(out, gw_phrase_msgid(v->text));
  else if (v->unit == GW_UNIT_TEXT)
    jstr(out, v->text);
  else
    gw_json_write_number(out, v->number);
}

/* A line of evidence: its id, GPU, the English sentence, the time range and
 * the values with their units (docs/report-json.md). */
static void print_evidence(FILE *out, const struct gw_evidence *e) {
  char line[GW_TEXT];
  gw_evidence_text(e, 0, line, sizeof line);
  fputs("        {\"id\": ", out);
  jstr(out, e->id ? e->id : "");
  fprintf(out, ", \"gpu\": %d, \"text\": ", e->gpu);
  jstr(out, line);
  if (e->t0_ns || e->t1_ns) {
    /* epoch nanoseconds are above 2^53: strings (gw_json_write_int) */
    fputs(", \"t0_ns\": ", out);
    gw_json_write_int(out, (long long)e->t0_ns);
    fputs(", \"t1_ns\": ", out);
    gw_json_write_int(out, (long long)e->t1_ns);
  } else
    fputs(", \"t0_ns\": null, \"t1_ns\": null", out);
  fputs(", \"values\": [", out);
  for (int i = 0; i < e->nvalues; i++) {
    fputs(i ? ", {\"name\": " : "{\"name\": ", out);
    jstr(out, e->values[i].name);
    fputs(", \"value\": ", out);
    jvalue(out, &e->values[i]);
    fputs(", \"unit\": ", out);
    jstr(out, gw_unit_name(e->values[i].unit));
    fputc('}', out);
  }
  fputs("]}", out);
}

static void jkey(FILE *out, const char *indent, const char *key) {
  fprintf(out, "%s\"%s\": ", indent, key);
}

static void jkv_num(FILE *out, const char *indent, const char *key, double v, int comma) {
  jkey(out, indent, key);
  jnum(out, v);
  fputs(comma ? ",\n" : "\n", out);
}

static void print_profile(FILE *out, const struct gw_gpu_profile *p, int comma) {
  const char *in = "        ";
  fputs("      \"profile\": {\n", out);
  jkv_num(out, in, "util_median_pct", p->util_med_pct, 1);
  jkv_num(out, in, "sm_active_median_pct", p->sm_med_pct, 1);
  jkv_num(out, in, "sm_per_util", p->sm_per_util, 1);
  jkv_num(out, in, "math_fill", p->math_fill, 1);
  jkv_num(out, in, "occupancy_median_pct", p->occupancy_med_pct, 1);
  jkv_num(out, in, "dram_bw_median_pct", p->dram_med_pct, 1);
  jkv_num(out, in, "power_median_w", p->power_med_w, 1);
  jkv_num(out, in, "power_limit_w", p->power_limit_w, 1);
  jkv_num(out, in, "mem_used_frac", p->mem_used_frac, 1);
  jkv_num(out, in, "mem_used_peak_frac", p->mem_peak_frac, 1);
  jkv_num(out, in, "sm_clock_median_mhz", p->sm_clock_med_mhz, 1);
  jkv_num(out, in, "sm_clock_max_mhz", p->sm_clock_max_mhz, 1);
  jkv_num(out, in, "pcie_rx_median_bps", p->pcie_rx_med_bps, 1);
  jkv_num(out, in, "power_cap_frac", p->power_cap_frac, 1);
  jkv_num(out, in, "period_s", p->period.found ? p->period.period_s : NAN, 1);
  jkv_num(out, in, "period_strength", p->period.found ? p->period.strength : NAN, 1);
  jkv_num(out, in, "xid_count", p->xid_count, 0);
  fputs(comma ? "      },\n" : "      }\n", out);
}

static void jkv_str(FILE *out, const char *indent, const char *key, const char *v, int comma) {
  jkey(out, indent, key);
  if (v && v[0])
    jstr(out, v);
  else
    fputs("null", out);
  fputs(comma ? ",\n" : "\n", out);
}

static void jkv_int(FILE *out, const char *indent, const char *key, long long v, int known, int comma) {
  jkey(out, indent, key);
  if (known)
    gw_json_write_int(out, v);
  else
    fputs("null", out);
  fputs(comma ? ",\n" : "\n", out);
}

/* Only for a GPU with traced kernels: a report without a trace keeps its shape. */
static void print_kernels(FILE *out, const struct gw_kernel_stats *k) {
  const char *in = "        ";
  fputs("      \"kernels\": {\n", out);
  fprintf(out, "%s\"sampled\": %s,\n", in, k->sampled ? "true" : "false");
  jkv_int(out, in, "count", k->nkernels, 1, 1);
  jkv_int(out, in, "windows", k->nwindows, k->sampled, 1);
  jkv_num(out, in, "traced_s", k->traced_s, 1);
  jkv_num(out, in, "launches_per_s", k->launches_per_s, 1);
  jkv_num(out, in, "duration_mean_us", k->dur_mean_us, 1);
  jkv_num(out, in, "duration_median_us", k->dur_median_us, 1);
  jkv_num(out, in, "duration_p90_us", k->dur_p90_us, 1);
  jkv_num(out, in, "per_parameter_share", k->per_param_share, 1);
  fprintf(out, "%s\"duration_histogram\": [", in);
  for (int b = 0; b < GW_KSTATS_NBUCKETS; b++) {
    fprintf(out, "%s{\"lo_us\": %.0f, \"hi_us\": ", b ? ", " : "", gw_kstats_bucket_lo_us(b));
    if (b + 1 < GW_KSTATS_NBUCKETS)
      fprintf(out, "%.0f", gw_kstats_bucket_lo_us(b + 1));
    else
      fputs("null", out);
    fputs(", \"count\": ", out);
    gw_json_write_int(out, (long long)k->hist[b]);
    fputc('}', out);
  }
  fputs("],\n", out);
  int steps = k->step_source != GW_KSTEPS_NONE, seq = k->step_source == GW_KSTEPS_SEQUENCE;
  jkv_str(out, in, "step_source", gw_kstep_source_id(k->step_source), 1);
  jkv_int(out, in, "steps", k->nsteps, steps, 1);
  jkv_int(out, in, "period_kernels", k->period_kernels, seq, 1);
  jkv_num(out, in, "period_share", seq ? k->period_share : NAN, 1);
  jkv_num(out, in, "kernels_per_step_mean", k->kernels_per_step_mean, 1);
  jkv_num(out, in, "kernels_per_step_median", k->kernels_per_step_median, 1);
  jkv_num(out, in, "step_median_s", k->step_median_s, 1);
  jkv_int(out, in, "shape_pairs", k->shape_pairs, steps, 1);
  jkv_int(out, in, "shape_varying", k->shape_varying, steps, 1);
  jkv_num(out, in, "shape_varying_share", k->shape_pairs > 0 ? (double)k->shape_varying / (double)k->shape_pairs : NAN,
          1);
  fprintf(out, "%s\"varying_kernels\": [", in);
  for (int v = 0; v < k->nvarying; v++) {
    fputs(v ? ", {\"name\": " : "{\"name\": ", out);
    jstr(out, k->top[v].name);
    fputs(", \"pairs\": ", out);
    gw_json_write_int(out, (long long)k->top[v].pairs);
    fputs(", \"varying\": ", out);
    gw_json_write_int(out, (long long)k->top[v].varying);
    fputc('}', out);
  }
  fputs("],\n", out);
  /* sampled: the gap classification inside the windows; null for a full trace (the ledger has it) */
  if (k->window_span_s <= 0) {
    fprintf(out, "%s\"window_gaps\": null\n      }\n", in);
    return;
  }
  const char *in2 = "          ";
  fprintf(out, "%s\"window_gaps\": {\n", in);
  jkv_num(out, in2, "span_s", k->window_span_s, 1);
  jkv_num(out, in2, "busy", k->window_busy_share, 1);
  jkv_num(out, in2, "idle_launch", k->window_launch_share, 1);
  jkv_num(out, in2, "idle_sync", k->window_sync_seen ? k->window_sync_share : NAN, 1);
  jkv_num(out, in2, "idle_input", k->window_input_share, 1);
  jkv_num(out, in2, "idle_comm", k->window_comm_share, 1);
  jkv_num(out, in2, "idle_other", k->window_other_share, 0);
  fprintf(out, "%s}\n      }\n", in);
}

static void print_nccl(FILE *out, const struct gw_nccl_summary *n) {
  const char *in = "      ";
  fputs("    \"nccl\": {\n", out);
  fprintf(out, "%s\"log\": %s,\n", in, n->has_log ? "true" : "false");
  jkv_str(out, in, "version", n->version, 1);
  jkv_str(out, in, "network", n->network, 1);
  jkv_int(out, in, "nodes", n->nnodes, n->nnodes >= 0, 1);
  fprintf(out, "%s\"connections\": {", in);
  int first = 1;
  for (int t = 0; t < GW_NCCL_NTRANSPORTS; t++)
    if (n->connections[t] > 0) {
      fputs(first ? "" : ", ", out);
      jstr(out, gw_nccl_transport_name((enum gw_nccl_transport)t));
      fprintf(out, ": %d", n->connections[t]);
      first = 0;
    }
  fputs("},\n", out);
  jkv_int(out, in, "p2p_disable", n->env_p2p_disable, n->env_p2p_disable >= 0, 1);
  jkv_int(out, in, "shm_disable", n->env_shm_disable, n->env_shm_disable >= 0, 1);
  jkv_int(out, in, "ib_disable", n->env_ib_disable, n->env_ib_disable >= 0, 1);
  fprintf(out, "%s\"warnings\": [", in);
  for (int w = 0; w < n->nwarnings && w < GW_NCCL_MAX_WARN; w++) {
    fputs(w ? ", " : "", out);
    jstr(out, n->warnings[w]);
  }
  fprintf(out, "],\n%s\"advice\": [", in);
  first = 1;
  for (int a = 0; a < GW_NCCL_NADVICE; a++)
    if (n->advice[a]) {
      fprintf(out, "%s\n%s  {\"id\": ", first ? "" : ",", in);
      jstr(out, gw_nccl_advice_id((enum gw_nccl_advice)a));
      fputs(", \"text\": ", out);
      jstr(out, gw_nccl_advice_english((enum gw_nccl_advice)a));
      fputs("}", out);
      first = 0;
    }
  fprintf(out, "%s]\n    },\n", first ? "" : "\n      ");
}

/* Only for two or more GPUs that worked: a single-GPU report keeps its shape. */
static void print_multi_gpu(FILE *out, const struct gw_multi_gpu *m) {
  const char *in = "    ";
  fputs("  \"multi_gpu\": {\n", out);
  jkv_int(out, in, "nodes", m->nnodes, 1, 1);
  jkv_str(out, in, "timeline", gw_mgpu_timeline_id(m->timeline), 1);
  jkv_num(out, in, "sm_spread_pts", m->sm_spread_pts, 1);
  jkv_num(out, in, "nccl_share_spread", m->nccl_spread, 1);
  jkv_num(out, in, "exposed_comm_share", m->exposed_share, 1);
  jkv_num(out, in, "shared_dip_share", m->shared_dip_share, 1);
  jkv_num(out, in, "solo_dip_share", m->solo_dip_share, 1);
  fprintf(out, "%s\"imbalanced\": %s,\n", in, m->imbalanced ? "true" : "false");
  const struct gw_mgpu_gpu *s = m->straggler >= 0 ? &m->gpus[m->straggler] : NULL;
  jkv_int(out, in, "straggler_gpu", s ? s->gpu : 0, s != NULL, 1);
  jkv_str(out, in, "straggler_label", s ? s->label : NULL, 1);
  jkv_int(out, in, "straggler_rank", s ? s->rank : 0, s && s->rank >= 0, 1);
  jkv_str(out, in, "straggler_cause", s ? gw_straggler_cause_id(m->cause) : NULL, 1);
  fprintf(out, "%s\"slow_transport\": %s,\n", in, m->slow_transport ? "true" : "false");
  print_nccl(out, &m->nccl);
  fputs("    \"gpus\": [\n", out);
  for (int i = 0; i < m->ngpus; i++) {
    const struct gw_mgpu_gpu *g = &m->gpus[i];
    const char *gi = "        ";
    fputs("      {\n", out);
    jkv_int(out, gi, "gpu", g->gpu, 1, 1);
    jkv_str(out, gi, "label", g->label, 1);
    jkv_int(out, gi, "node", g->node, 1, 1);
    jkv_int(out, gi, "node_gpu", g->node_gpu, 1, 1);
    jkv_int(out, gi, "rank", g->rank, g->rank >= 0, 1);
    jkv_int(out, gi, "pid", g->pid, g->pid > 0, 1);
    jkv_num(out, gi, "util_median_pct", g->util_med_pct, 1);
    jkv_num(out, gi, "sm_active_median_pct", g->sm_med_pct, 1);
    jkv_num(out, gi, "tensor_median_pct", g->tensor_med_pct, 1);
    jkv_num(out, gi, "sm_clock_median_mhz", g->sm_clock_med_mhz, 1);
    jkv_num(out, gi, "busy_s", g->busy_s, 1);
    jkv_num(out, gi, "traced_s", g->covered_s, 1);
    jkv_num(out, gi, "compute_s", g->compute_s, 1);
    jkv_num(out, gi, "nccl_s", g->nccl_s, 1);
    jkv_num(out, gi, "nccl_share", g->nccl_share, 1);
    jkv_num(out, gi, "nccl_overlap_frac", g->overlap_frac, 1);
    jkv_num(out, gi, "nccl_exposed_s", g->exposed_s, 1);
    jkv_num(out, gi, "solo_dip_share", g->solo_dip_share, 1);
    jkv_str(out, gi, "transport", g->transport, 0);
    fprintf(out, "      }%s\n", i + 1 < m->ngpus ? "," : "");
  }
  fputs("    ]\n  },\n", out);
}

/* Only for recordings with thread or Python samples: older reports keep their shape. */
static void print_idle_attribution(FILE *out, const struct gw_idle_attribution *a) {
  const char *in = "        ";
  fputs("      \"idle_attribution\": {\n", out);
  jkv_str(out, in, "source", a->source == GW_ATTR_PY ? "python_samples" : "thread_samples", 1);
  jkv_str(out, in, "idle_from", a->from_timeline ? "timeline" : "samples", 1);
  jkv_num(out, in, "sampler_hz", a->sampler_hz, 1);
  jkv_num(out, in, "taken_hz", a->taken_hz, 1);
  jkv_int(out, in, "pid", a->pid, a->pid > 0, 1);
  jkv_int(out, in, "loader_workers", a->nworkers, 1, 1);
  jkv_num(out, in, "idle_s", a->idle_s, 1);
  fputs("        \"causes\": [", out);
  int first = 1;
  for (int c = 0; c < GW_IDLE_NCAUSES; c++) {
    const struct gw_attr_row *r = &a->rows[c];
    if (r->seconds <= 0)
      continue;
    fprintf(out, "%s\n          {\"cause\": ", first ? "" : ",");
    first = 0;
    jstr(out, gw_idle_cause_name(c));
    fputs(", \"class\": ", out);
    jstr(out, gw_idle_cause_class(c));
    fputs(", \"seconds\": ", out);
    jnum(out, r->seconds);
    fputs(", \"share_of_wall\": ", out);
    jnum(out, r->share_of_wall);
    fputs(", \"share_of_idle\": ", out);
    jnum(out, r->share_of_idle);
    double ws = 0;
    for (int k = 0; k < GW_WORKER_NSTATES; k++)
      ws += r->worker_s[k];
    fputs(", \"workers\": ", out);
    if (ws > 0) {
      fputs("{", out);
      for (int k = 0; k < GW_WORKER_NSTATES; k++) {
        fprintf(out, "%s\"%s\": ", k ? ", " : "", gw_worker_state_name(k));
        jnum(out, r->worker_s[k] / ws);
      }
      fputs("}", out);
    } else {
      fputs("null", out);
    }
    fputs(", \"top_frames\": [", out);
    for (int k = 0; k < r->nframes; k++) {
      fputs(k ? ", {\"frame\": " : "{\"frame\": ", out);
      jstr(out, r->frame_text[k]);
      fprintf(out, ", \"samples\": %.0f}", r->frame_samples[k]);
    }
    fputs("]}", out);
  }
  fputs(first ? "]\n      },\n" : "\n        ]\n      },\n", out);
}

/* The sentences of n notes as a JSON array of strings, one a line: English
 * whatever the language, the messages untranslated. */
static void note_sentences(FILE *out, const struct gw_evidence *notes, int n) {
  char line[GW_TEXT];
  fputc('[', out);
  for (int i = 0; i < n; i++) {
    fputs(i ? ",\n    " : "\n    ", out);
    gw_note_text(&notes[i], 0, line, sizeof line);
    jstr(out, line);
  }
  fputs(n ? "\n  ]" : "]", out);
}

void gw_render_json(const struct gw_diagnosis *dx, FILE *out) {
  fprintf(out, "{\n  \"schema\": \"gpuwhy.report/%d\",\n", GW_REPORT_JSON_SCHEMA_VERSION);
  fprintf(out, "  \"schema_version\": %d,\n", GW_REPORT_JSON_SCHEMA_VERSION);
  fputs("  \"recording\": ", out);
  jstr(out, gw_render_basename(dx->path));
  /* epoch nanoseconds are above 2^53: written as strings */
  fputs(",\n  \"started_ns\": ", out);
  gw_json_write_int(out, (long long)dx->started_ns);
  fputs(",\n  \"ended_ns\": ", out);
  gw_json_write_int(out, (long long)dx->ended_ns);
  fputs(",\n", out);
  fputs("  \"verdict\": ", out);
  jstr(out, dx->verdict);
  fprintf(out, ",\n  \"sm_blind\": %s", dx->sm_blind ? "true" : "false");
  fprintf(out, ",\n  \"estimated\": %s,\n", dx->estimated ? "true" : "false");
  jkv_num(out, "  ", "active_s", dx->active_ns / 1e9, 1);
  jkv_num(out, "  ", "lost_share_of_active", dx->active_ns > 0 ? dx->lost_ns / dx->active_ns : NAN, 1);
  /* only where findings claim part of the idle: other row (older reports keep their shape) */
  if (dx->other_claimed_ns > 0 && dx->active_ns > 0)
    jkv_num(out, "  ", "idle_other_claimed_share_of_active", dx->other_claimed_ns / dx->active_ns, 1);

  fputs("  \"gpus\": [\n", out);
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_ledger *l = &dx->ledgers[i];
    fprintf(out, "    {\n      \"gpu\": %d,\n      \"ledger_source\": \"%s\",\n", l->gpu,
            l->from_timeline ? "timeline" : "counters");
    fprintf(out, "      \"sm_activity_available\": %s,\n", dx->profiles[i].has_sm ? "true" : "false");
    fprintf(out, "      \"sm_activity_source\": \"%s\",\n",
            gw_sm_activity_source_name((enum gw_sm_activity_source)dx->profiles[i].sm_source));
    jkv_num(out, "      ", "wall_s", (double)l->wall_ns / 1e9, 1);
    fputs("      \"active_start_ns\": ", out);
    gw_json_write_int(out, (long long)l->active_start_ns);
    fputs(",\n      \"active_end_ns\": ", out);
    gw_json_write_int(out, (long long)l->active_end_ns);
    fputs(",\n", out);
    jkv_num(out, "      ", "throttled_power_cap_share", l->wall_ns ? l->throttled_power_cap_ns / (double)l->wall_ns : 0,
            1);
    fputs("      \"ledger\": [\n", out);
    for (int r = 0; r < GW_LEDGER_NROWS; r++) {
      fprintf(out, "        {\"row\": \"%s\", \"measured\": %s, \"share\": ", gw_ledger_row_id((enum gw_ledger_row)r),
              l->measured[r] ? "true" : "false");
      jnum(out, l->measured[r] ? gw_render_row_share(l, r) : NAN);
      fputs(", \"seconds\": ", out);
      jnum(out, l->measured[r] ? l->row_ns[r] / 1e9 : NAN);
      fprintf(out, "}%s\n", r + 1 < GW_LEDGER_NROWS ? "," : "");
    }
    fputs("      ],\n", out);
    if (dx->attr && dx->attr[i].source != GW_ATTR_NONE)
      print_idle_attribution(out, &dx->attr[i]);
    int has_kernels = dx->kstats && dx->kstats[i].nkernels > 0;
    print_profile(out, &dx->profiles[i], has_kernels);
    if (has_kernels)
      print_kernels(out, &dx->kstats[i]);
    fprintf(out, "    }%s\n", i + 1 < dx->ngpus ? "," : "");
  }
  fputs("  ],\n", out);
  if (dx->multi)
    print_multi_gpu(out, dx->multi);
  gw_step_facts_json(dx, out);
  gw_step_breakdown_json(dx, out);
  gw_mfu_facts_json(dx, out);
  fputs("  \"findings\": [\n", out);
  for (int i = 0; i < dx->nfindings; i++) {
    const struct gw_finding *f = &dx->findings[i];
    fputs("    {\n      \"class\": ", out);
    jstr(out, f->class_id);
    fputs(",\n      \"title\": ", out);
    jstr(out, gw_class_title(f->class_id, 0));
    fputs(",\n", out);
    jkv_num(out, "      ", "share_of_lost", f->share_of_lost, 1);
    jkv_num(out, "      ", "share_of_active", f->share_of_active, 1);
    jkv_num(out, "      ", "confidence", f->confidence, 1);
    jkv_num(out, "      ", "confidence_raw", f->confidence_raw, 1);
    jkv_num(out, "      ", "speedup_max", f->speedup_max, 1);
    fputs("      \"evidence\": [\n", out);
    for (int e = 0; e < f->nevidence; e++) {
      print_evidence(out, &f->evidence[e]);
      fputs(e + 1 < f->nevidence ? ",\n" : "\n", out);
    }
    fputs("      ],\n      \"fixes\": [\n", out);
    for (int k = 0; k < f->nfixes; k++) {
      fputs("        {\"what\": ", out);
      jstr(out, gw_fix_what(&f->fixes[k], 0));
      fputs(", \"why\": ", out);
      jstr(out, gw_fix_why(&f->fixes[k], 0));
      fprintf(out, "}%s\n", k + 1 < f->nfixes ? "," : "");
    }
    fprintf(out, "      ]\n    }%s\n", i + 1 < dx->nfindings ? "," : "");
  }
  /* English whatever the language: the sentences from the messages untranslated */
  char line[GW_TEXT];
  fputs("  ],\n  \"interpretation\": ", out);
  note_sentences(out, dx->interp, dx->ninterp);
  fputs(",\n", out);
  fputs("  \"experiments\": [", out);
  for (int i = 0; i < dx->nexperiments; i++) {
    fputs(i ? ",\n    {\"command\": " : "\n    {\"command\": ", out);
    jstr(out, dx->experiments[i].what);
    fputs(", \"why\": ", out);
    gw_note_id_text(dx->experiments[i].why_id, 0, line, sizeof line);
    jstr(out, line);
    fputs("}", out);
  }
  fputs(dx->nexperiments ? "\n  ],\n" : "],\n", out);
  /* the classes this recording cannot show, and the longest period a
   * recurring stall can have to be seen in it */
  fputs("  \"not_measurable\": [", out);
  for (int r = 0, n = 0; r < gw_nrules; r++)
    if (dx->not_measurable[r]) {
      fputs(n++ ? ", " : "", out);
      jstr(out, gw_rules[r]->id);
    }
  fputs("],\n  \"pattern_visible_max_s\": ", out);
  gw_json_write_number(out, dx->pattern_visible_max_s);
  fputs(",\n  \"notes\": ", out);
  note_sentences(out, dx->notes, dx->nnotes);
  fputs("\n}\n", out);
}
