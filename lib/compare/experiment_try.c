/* gpuwhy experiment try: the baseline and each fix interleaved in rounds,
 * every run recorded until it has run the steady seconds asked
 * (compare/steady_run.h), each arm's steady steps pooled over its rounds and
 * compared with the baseline's (gw_compare_pair: the throughput ratio with
 * its bootstrap 95% interval); then the fixes that helped, together. */
#include <gpuwhy/experiment.h>

#include <dirent.h>
#include <errno.h>
#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/series.h"
#include "compare/comparison.h"
#include "compare/run_load.h"
#include "analysis/fix_catalog.h"
#include "compare/steady_run.h"
#include "core/i18n.h"
#include "core/json_write.h"
#include "core/util.h"
#include "render/fix_catalog_text.h"
#include "store/store.h"

enum try_verdict { TV_HELPED, TV_NO_EFFECT, TV_HURT, TV_UNDECIDED, TV_BROKE, TV_REFUSED, TV_NOT_MEASURED };
static const char *const verdict_id[] = {"helped", "no_effect", "hurt",        "undecided",
                                         "broke",  "refused",   "not_measured"};

struct arm {
  char label[256];     /* GPUWHY_EXPERIMENT: "baseline", "workers=6", "workers=6+pin_memory" */
  char stem[64];       /* recording names: stem-rN.db */
  char fixes_env[512]; /* GPUWHY_PY_FIXES; "" for the baseline */
  int is_fix, is_combined;
  struct gw_fix_plan plan; /* is_fix */
  int broke, exit_status, refused;
  char refused_msg[200], applied_msg[200];
  int nruns;
  char runs[8][96]; /* recording file names, in the keep folder */
  int has_pooled;
  struct gw_run_summary pooled; /* steady steps of all its rounds */
  double steady_s;
  int compared;
  struct gw_comparison c;
  enum try_verdict verdict;
  int within_bound; /* 1 yes, 0 no, -1 unknown */
};

struct try_ctx {
  const struct gw_try_opts *o;
  char dir[4096];
  char *const *argv;
  int run_no, runs_total;
  double max_s;
};

static int dir_is_empty(const char *path) {
  DIR *d = opendir(path);
  if (!d)
    return 0;
  struct dirent *e;
  int empty = 1;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      empty = 0;
      break;
    }
  closedir(d);
  return empty;
}

/* The keep folder: made, or an empty one taken; never one with files in it. */
static int make_keep_dir(const struct gw_try_opts *o, char *dir, size_t cap, FILE *out) {
  if (o->keep_dir)
    snprintf(dir, cap, "%s", o->keep_dir);
  else {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(dir, cap, "gpuwhy-experiment-%Y%m%d-%H%M%S", &tm);
  }
  if (mkdir(dir, 0777) == 0)
    return 0;
  if (errno == EEXIST && dir_is_empty(dir))
    return 0;
  if (errno == EEXIST)
    fprintf(out, _("gpuwhy experiment: %s is not an empty folder: its files are kept; name another with --keep\n"),
            dir);
  else
    fprintf(out, _("gpuwhy experiment: cannot create the folder %s: %s\n"), dir, strerror(errno));
  return -1;
}

/* The first message of events of this kind in the recording, "" none. */
static int first_event(const struct gw_recording *rec, const char *kind, char *buf, size_t cap) {
  buf[0] = 0;
  for (size_t i = 0; i < rec->nevents; i++)
    if (strcmp(rec->events[i].kind, kind) == 0) {
      snprintf(buf, cap, "%s", rec->events[i].message);
      return 1;
    }
  return 0;
}

static void pool(struct arm *a, struct gw_run_summary *s) {
  if (!a->has_pooled) {
    a->pooled = *s;
    a->has_pooled = 1;
    return;
  }
  struct gw_run_summary *p = &a->pooled;
  p->step_s = gw_xrealloc(p->step_s, (p->nsteps + s->nsteps) * sizeof *p->step_s);
  memcpy(p->step_s + p->nsteps, s->step_s, s->nsteps * sizeof *s->step_s);
  p->nsteps += s->nsteps;
  gw_run_summary_step_stats(p);
  gw_run_summary_free(s);
}

/* One run of one arm. Returns 0 when recorded (whatever the program did), -1
 * when no recording was made. */
static int run_arm(struct try_ctx *t, struct arm *a, int round) {
  char name[96], path[4300];
  snprintf(name, sizeof name, "%s-r%d.db", a->stem, round);
  snprintf(path, sizeof path, "%s/%s", t->dir, name);
  t->run_no++;
  if (!t->o->quiet)
    fprintf(stderr, _("gpuwhy: run %d of %d: %s, round %d\n"), t->run_no, t->runs_total, a->label, round);
  if (a->fixes_env[0])
    setenv("GPUWHY_PY_FIXES", a->fixes_env, 1);
  else
    unsetenv("GPUWHY_PY_FIXES");
  setenv("GPUWHY_EXPERIMENT", a->label, 1);
  struct gw_steady_run_opts so = {
      .argv = t->argv, .seconds = t->o->seconds, .max_seconds = t->max_s, .nvml_lib = t->o->nvml_lib};
  struct gw_steady_run res;
  /* the command's own output goes to stderr with the progress lines: stdout
   * holds only the table (or the JSON) */
  fflush(stdout);
  int saved_stdout = dup(STDOUT_FILENO);
  if (saved_stdout >= 0)
    dup2(STDERR_FILENO, STDOUT_FILENO);
  gw_steady_run_record(&so, path, &res);
  if (saved_stdout >= 0) {
    fflush(stdout);
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
  }
  unsetenv("GPUWHY_PY_FIXES");
  unsetenv("GPUWHY_EXPERIMENT");
  if (res.msg[0])
    fprintf(stderr, "gpuwhy experiment: %s\n", res.msg);
  if (gw_store_count_runs(path) != 1)
    return -1;
  if (a->nruns < 8)
    snprintf(a->runs[a->nruns++], sizeof a->runs[0], "%s", name);
  struct gw_err err = {{0}};
  if (a->is_fix || a->is_combined) {
    struct gw_recording *rec = NULL;
    if (gw_recording_load(path, &rec, &err) == GW_OK) {
      if (!a->applied_msg[0])
        first_event(rec, "fix_applied", a->applied_msg, sizeof a->applied_msg);
      /* refused where it was never applied: one DataLoader changed and
       * another refused (an IterableDataset for evaluation) still tries it */
      if (first_event(rec, "fix_refused", a->refused_msg, sizeof a->refused_msg) && !a->applied_msg[0])
        a->refused = 1;
      gw_recording_free(rec);
    }
  }
  if (!gw_steady_run_stopped(&res) && res.status != 0) {
    a->broke = 1;
    a->exit_status = res.status;
  }
  if (a->broke || a->refused)
    return 0;
  struct gw_run_summary s;
  memset(&s, 0, sizeof s);
  if (gw_run_summary_load(path, &s, &err) != GW_OK) {
    fprintf(stderr, "gpuwhy experiment: %s\n", err.msg);
    return 0;
  }
  gw_steady_run_keep_steady(&s, &res);
  if (res.steady.state != GW_STEADY_FOUND) {
    fprintf(stderr,
            _("gpuwhy experiment: %s, round %d: no steady steps (the command ended or --max-seconds came first)\n"),
            a->label, round);
    gw_run_summary_free(&s);
    return 0;
  }
  a->steady_s += res.steady.steady_s;
  pool(a, &s);
  return 0;
}

/* Runs of one unchanged command, interleaved on one GPU, differ by up to
 * 3-4% in throughput (healthy_dataloader on an H100: every fix's interval
 * x0.97..x1.04 with 6 steady seconds a run): an interval inside 5% either
 * side of 1 holds no effect larger than that spread. */
#define TRY_RUN_SPREAD 0.05

/* helped: the interval lies above 1 by more than the practical change;
 * no effect: inside 0.98..1.02, or straddling 1 within TRY_RUN_SPREAD; hurt: below 1 and
 * by more than the practical change; undecided otherwise (too wide). */
static enum try_verdict verdict_of(const struct gw_ratio_ci *r) {
  if (!isfinite(r->lo) || !isfinite(r->hi))
    return TV_UNDECIDED;
  if (r->lo >= 1 - GW_PRACTICAL_CHANGE && r->hi <= 1 + GW_PRACTICAL_CHANGE)
    return TV_NO_EFFECT;
  if (r->lo > 1 + GW_PRACTICAL_CHANGE)
    return TV_HELPED;
  /* below 1 by less than the practical change: no slowdown worth a verdict */
  if (r->hi < 1.0)
    return r->point <= 1 - GW_PRACTICAL_CHANGE ? TV_HURT : TV_NO_EFFECT;
  /* straddles 1 within the spread two runs of one command show on one
   * machine: no change a short experiment can tell from none */
  if (r->lo <= 1 && r->hi >= 1 && r->lo >= 1 - TRY_RUN_SPREAD && r->hi <= 1 + TRY_RUN_SPREAD)
    return TV_NO_EFFECT;
  return TV_UNDECIDED;
}

static void judge(struct arm *base, struct arm *a) {
  a->within_bound = -1;
  if (a->broke) {
    a->verdict = TV_BROKE;
    return;
  }
  if (a->refused) {
    a->verdict = TV_REFUSED;
    return;
  }
  if (!a->has_pooled || !base->has_pooled) {
    a->verdict = TV_NOT_MEASURED;
    return;
  }
  gw_compare_pair(&base->pooled, &a->pooled, NULL, 0, &a->c);
  if (a->c.basis != GW_BASIS_STEPS) {
    a->verdict = TV_NOT_MEASURED;
    return;
  }
  a->compared = 1;
  a->verdict = verdict_of(&a->c.throughput);
  double bound = a->is_fix ? a->plan.bound : NAN;
  /* within: the measured interval reaches down to the bound (2% for noise) */
  if (isfinite(bound))
    a->within_bound = a->c.throughput.lo <= bound * (1 + GW_PRACTICAL_CHANGE);
}

static const char *verdict_text(const struct arm *a, double seconds, char *buf, size_t cap) {
  switch (a->verdict) {
  case TV_HELPED:
    return _("helped");
  case TV_NO_EFFECT:
    return _("no effect");
  case TV_HURT:
    return _("hurt");
  case TV_UNDECIDED:
    snprintf(buf, cap, _("undecided: run longer, e.g. --seconds %.0f"), 2 * seconds);
    return buf;
  case TV_BROKE:
    snprintf(buf, cap, _("broke the program (exit %d)"), a->exit_status);
    return buf;
  case TV_REFUSED:
    snprintf(buf, cap, _("refused: %s"), a->refused_msg);
    return buf;
  case TV_NOT_MEASURED:
    return _("not measured: no steady steps");
  }
  return "";
}

static void jnum(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.6g", v);
  else
    fputs("null", f);
}

/* s as a JSON string, null when there is none. */
static void json_text_or_null(FILE *f, const char *s) {
  if (s)
    gw_json_write_string(f, s);
  else
    fputs("null", f);
}

/* The arm's recordings, the members of a JSON array. */
static void json_runs(FILE *f, const struct arm *a) {
  for (int i = 0; i < a->nruns; i++) {
    fputs(i ? ", " : "", f);
    gw_json_write_string(f, a->runs[i]);
  }
}

static void json_arm(FILE *f, const struct arm *a, double seconds) {
  char buf[512];
  fputs("{\"fix\": ", f);
  gw_json_write_string(f, a->label);
  fputs(", \"runs\": [", f);
  json_runs(f, a);
  fputs("]", f);
  if (a->is_fix) {
    fputs(", \"name\": ", f);
    gw_json_write_string(f, a->plan.kind->name);
    fputs(", \"changes\": ", f);
    gw_json_write_string(f, gw_fix_kind_changes(a->plan.kind->name, 0));
    fputs(", \"addresses\": ", f);
    gw_json_write_string(f, a->plan.kind->addresses);
    fputs(", \"value_from\": ", f);
    gw_json_write_string(f, a->plan.given_value ? "given (--fix)" : a->plan.derivation);
    gw_fix_reason_text(&a->plan, 0, buf, sizeof buf);
    fputs(", \"predicted\": {\"point\": ", f);
    jnum(f, a->plan.point);
    fputs(", \"bound\": ", f);
    jnum(f, a->plan.bound);
    fputs(", \"addressed_share\": ", f);
    jnum(f, a->plan.addressed_share);
    fputs(", \"reason\": ", f);
    gw_json_write_string(f, buf);
    fputs("}", f);
  } else if (a->is_combined)
    fputs(", \"predicted\": null", f);
  fputs(", \"measured\": ", f);
  if (a->compared) {
    fputs("{\"ratio\": ", f);
    jnum(f, a->c.throughput.point);
    fputs(", \"lo\": ", f);
    jnum(f, a->c.throughput.lo);
    fputs(", \"hi\": ", f);
    jnum(f, a->c.throughput.hi);
    fprintf(f, ", \"unit\": \"%s\", \"baseline\": ", a->c.per_sample ? "samples/s" : "steps/s");
    jnum(f, a->c.throughput_a);
    fputs(", \"throughput\": ", f);
    jnum(f, a->c.throughput_b);
    fprintf(f, ", \"steady_steps\": %zu, \"steady_s\": ", a->pooled.nsteps);
    jnum(f, a->steady_s);
    fputs("}", f);
  } else
    fputs("null", f);
  fprintf(f, ", \"verdict\": \"%s\"", verdict_id[a->verdict]);
  if (a->verdict == TV_UNDECIDED)
    fprintf(f, ", \"decide\": \"run longer, e.g. --seconds %.0f\"", 2 * seconds);
  fputs(", \"within_bound\": ", f);
  fputs(a->within_bound < 0 ? "null" : a->within_bound ? "true" : "false", f);
  fputs(", \"exit_status\": ", f);
  if (a->broke)
    fprintf(f, "%d", a->exit_status);
  else
    fputs("null", f);
  fputs(", \"refused\": ", f);
  json_text_or_null(f, a->refused_msg[0] ? a->refused_msg : NULL);
  fputs(", \"applied\": ", f);
  json_text_or_null(f, a->applied_msg[0] ? a->applied_msg : NULL);
  fputs("}", f);
}

static void write_json(FILE *f, const struct try_ctx *t, const struct arm *arms, int narms, const struct arm *combined,
                       const char *date) {
  const struct gw_try_opts *o = t->o;
  const struct arm *base = &arms[0];
  fputs("{\n  \"experiment\": \"try\",\n  \"version\": 1,\n  \"date\": ", f);
  gw_json_write_string(f, date);
  fputs(",\n  \"gpu\": ", f);
  json_text_or_null(f, base->has_pooled && base->pooled.setup.gpu[0] ? base->pooled.setup.gpu : NULL);
  fputs(",\n  \"command\": [", f);
  for (int i = 0; t->argv[i]; i++) {
    fputs(i ? ", " : "", f);
    gw_json_write_string(f, t->argv[i]);
  }
  fputs("],\n  \"from\": ", f);
  json_text_or_null(f, o->from);
  fprintf(f, ",\n  \"rounds\": %d,\n  \"seconds\": ", o->rounds);
  jnum(f, o->seconds);
  fputs(",\n  \"keep\": ", f);
  gw_json_write_string(f, t->dir);
  fputs(",\n  \"baseline\": {\"runs\": [", f);
  json_runs(f, base);
  fputs("], \"steady_steps\": ", f);
  fprintf(f, "%zu, \"steps_per_s\": ", base->has_pooled ? base->pooled.nsteps : 0);
  jnum(f, base->has_pooled ? base->pooled.steps_per_s : NAN);
  fputs(", \"samples_per_s\": ", f);
  jnum(f, base->has_pooled ? base->pooled.samples_per_s : NAN);
  fputs("},\n  \"fixes\": [", f);
  for (int i = 1; i < narms; i++) {
    fputs(i > 1 ? ",\n    " : "\n    ", f);
    json_arm(f, &arms[i], o->seconds);
  }
  fputs(narms > 1 ? "\n  ],\n  \"combined\": " : "],\n  \"combined\": ", f);
  if (combined)
    json_arm(f, combined, o->seconds);
  else
    fputs("null", f);
  fputs("\n}\n", f);
}

static void fmt_ratio(char *buf, size_t cap, double v) {
  if (isfinite(v))
    snprintf(buf, cap, "x%.2f", v);
  else
    snprintf(buf, cap, "?");
}

static void text_row(FILE *out, const struct arm *a, double seconds) {
  char pred[64] = "", p1[16], p2[16], meas[96] = "-", vbuf[320];
  if (a->is_fix) {
    fmt_ratio(p1, sizeof p1, a->plan.point);
    fmt_ratio(p2, sizeof p2, a->plan.bound);
    snprintf(pred, sizeof pred, "%s <= %s", p1, p2);
  } else
    snprintf(pred, sizeof pred, "-");
  if (a->compared)
    snprintf(meas, sizeof meas, "x%.2f (x%.2f..x%.2f) %.2f %s", a->c.throughput.point, a->c.throughput.lo,
             a->c.throughput.hi, a->c.throughput_b, a->c.per_sample ? _("samples/s") : _("steps/s"));
  const char *within = a->within_bound < 0 ? "-" : a->within_bound ? _("yes") : _("no");
  fprintf(out, "  %-24s %-18s %-40s %-6s %s\n", a->label, pred, meas, within,
          verdict_text(a, seconds, vbuf, sizeof vbuf));
}

static void text_details(FILE *out, const struct arm *a) {
  char buf[512];
  fprintf(out, "  %s\n", a->label);
  if (a->is_fix) {
    fprintf(out, _("    changes: %s\n"), gw_fix_kind_changes(a->plan.kind->name, 1));
    gw_fix_reason_text(&a->plan, 1, buf, sizeof buf);
    fprintf(out, _("    predicted: %s\n"), buf);
    if (!a->plan.given_value && a->plan.derivation[0])
      fprintf(out, _("    value from the recording: %s\n"), a->plan.derivation);
  } else if (a->is_combined)
    fputs(_("    the fixes that helped, together; no prediction (their causes may overlap)\n"), out);
  if (a->applied_msg[0]) {
    fprintf(out, _("    hook: %s\n"), a->applied_msg);
    if (a->refused_msg[0])
      fprintf(out, _("    hook, elsewhere: %s\n"), a->refused_msg);
  } else if (a->is_fix && !a->refused && !a->broke)
    fputs(_("    hook: it neither applied nor refused the fix (a hook without fixes, or a program it never reached)\n"),
          out);
  if (a->compared && a->plan.kind && a->plan.kind->per_sample && !a->c.per_sample)
    fputs(_("    compared in steps/s: the samples per step are unknown, so a larger batch's gain does not show\n"),
          out);
}

static void print_text(FILE *out, const struct try_ctx *t, struct arm *arms, int narms, struct arm *combined) {
  const struct arm *base = &arms[0];
  fprintf(out, _("Experiment: %d round(s), %.0f s of steady steps per run; recordings in %s\n"), t->o->rounds,
          t->o->seconds, t->dir);
  if (base->has_pooled && isfinite(base->pooled.samples_per_s))
    fprintf(out, _("  baseline: %.2f steps/s, %.2f samples/s over %zu steady steps\n"), base->pooled.steps_per_s,
            base->pooled.samples_per_s, base->pooled.nsteps);
  else if (base->has_pooled)
    fprintf(out, _("  baseline: %.2f steps/s over %zu steady steps\n"), base->pooled.steps_per_s, base->pooled.nsteps);
  /* xgettext:no-c-format */
  const char *measured_title = _("measured (95% interval)");
  fprintf(out, "  %-24s %-18s %-40s %-6s %s\n", _("fix"), _("predicted"), measured_title, _("within"), _("verdict"));
  for (int i = 1; i < narms; i++)
    text_row(out, &arms[i], t->o->seconds);
  if (combined)
    text_row(out, combined, t->o->seconds);
  fputs(_("Predicted: the speed-up if the time the fix addresses were all removed, at most the bound; within: whether "
          "the measured gain lies within it.\n"),
        out);
  for (int i = 1; i < narms; i++)
    text_details(out, &arms[i]);
  if (combined)
    text_details(out, combined);
}

static void free_arm(struct arm *a) {
  if (a->has_pooled)
    gw_run_summary_free(&a->pooled);
}

int gw_try_check_fix(const char *arg, char *err, size_t cap) {
  struct gw_fix_plan p;
  enum gw_fix_parse_status st = gw_fix_parse(arg, &p);
  if (st == GW_FIX_PARSE_OK)
    return 0;
  gw_fix_parse_status_text(st, arg, err, cap);
  return -1;
}

int gw_try_run(const struct gw_try_opts *o, FILE *out) {
  struct try_ctx t = {.o = o};
  t.max_s = o->max_seconds > 0 ? o->max_seconds : o->seconds + GW_FIXED_BATCH_WARMUP_ROOM_S;
  struct gw_run_setup from_setup;
  memset(&from_setup, 0, sizeof from_setup);
  struct gw_diagnosis *dx = NULL;
  struct gw_err err = {{0}};
  int rc = GPUWHY_EXIT_INPUT;
  struct arm arms[1 + GW_TRY_MAX_FIXES];
  struct arm combined;
  memset(arms, 0, sizeof arms);
  memset(&combined, 0, sizeof combined);
  int narms = 1, have_combined = 0;
  if (o->from) {
    struct gw_run_summary s;
    if (gw_run_summary_load(o->from, &s, &err) != GW_OK) {
      fprintf(out, "gpuwhy experiment: %s\n", err.msg);
      return GPUWHY_EXIT_INPUT;
    }
    if (s.setup.argc == 0) {
      fprintf(out,
              _("gpuwhy experiment: %s holds no command (it followed a running process, or was imported): give "
                "the command after --\n"),
              o->from);
      gw_run_summary_free(&s);
      return GPUWHY_EXIT_USAGE;
    }
    gw_run_setup_copy(&from_setup, &s.setup);
    gw_run_summary_free(&s);
    t.argv = from_setup.argv;
    if (gw_diagnose_file(o->from, &dx, &err) != GW_OK) {
      fprintf(out, "gpuwhy experiment: %s\n", err.msg);
      gw_run_setup_free(&from_setup);
      return GPUWHY_EXIT_INPUT;
    }
  } else
    t.argv = o->argv;
  if (make_keep_dir(o, t.dir, sizeof t.dir, out) != 0) {
    rc = GPUWHY_EXIT_USAGE;
    goto done;
  }
  struct arm *base = &arms[0];
  snprintf(base->label, sizeof base->label, "baseline");
  snprintf(base->stem, sizeof base->stem, "baseline");
  /* without --fix the number of runs is known once the baseline is diagnosed */
  t.runs_total = o->rounds * (1 + (o->nfixes ? o->nfixes : 1));
  int base_done = 0;
  if (!dx) {
    if (run_arm(&t, base, 1) != 0 || base->broke) {
      if (base->broke)
        fprintf(out, _("The baseline run broke the program (exit %d): nothing to compare a fix with.\n"),
                base->exit_status);
      else
        fprintf(out, _("The baseline run could not be recorded.\n"));
      goto done;
    }
    base_done = 1;
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", t.dir, base->runs[0]);
    if (gw_diagnose_file(path, &dx, &err) != GW_OK)
      fprintf(stderr, "gpuwhy experiment: %s\n", err.msg);
  }
  struct gw_fix_plan plans[GW_TRY_MAX_FIXES];
  int nplans = 0;
  if (o->nfixes) {
    for (int i = 0; i < o->nfixes; i++) {
      if (gw_fix_parse(o->fixes[i], &plans[nplans]) != GW_FIX_PARSE_OK)
        continue; /* checked by the caller */
      gw_fix_predict(dx, &plans[nplans]);
      nplans++;
    }
  } else if (dx)
    nplans = gw_fix_applicable(dx, plans, GW_TRY_MAX_FIXES);
  for (int i = 0; i < nplans; i++) {
    struct arm *a = &arms[narms++];
    a->is_fix = 1;
    a->plan = plans[i];
    snprintf(a->label, sizeof a->label, "%s", plans[i].text);
    snprintf(a->stem, sizeof a->stem, "%s", plans[i].kind->name);
    /* the same fix twice with two values: the value names the recordings too (workers-4-r1.db) */
    for (int j = 1; j < narms - 1; j++)
      if (strcmp(arms[j].stem, a->stem) == 0) {
        snprintf(a->stem, sizeof a->stem, "%s", plans[i].text);
        for (char *c = a->stem; *c; c++)
          if (*c == '=')
            *c = '-';
        break;
      }
    /* a fix that acts only with another (fix_catalog.c: needs) carries it in its run */
    snprintf(a->fixes_env, sizeof a->fixes_env, "%s%s%s", plans[i].kind->needs, plans[i].kind->needs[0] ? "," : "",
             plans[i].text);
  }
  if (nplans == 0) {
    fprintf(out,
            _("No fix of the catalogue addresses what the diagnosis found (verdict: %s): nothing to try. Name one "
              "with --fix.\n"),
            dx ? dx->verdict : "unknown");
    rc = GPUWHY_EXIT_OK;
    goto done;
  }
  t.runs_total = o->rounds * narms;
  for (int r = 1; r <= o->rounds; r++)
    for (int i = 0; i < narms; i++) {
      if (i == 0 && r == 1 && base_done)
        continue;
      if (arms[i].broke || arms[i].refused)
        continue; /* a fix that broke the program or was refused is not tried again */
      if (run_arm(&t, &arms[i], r) != 0 && i == 0 && r == 1) {
        fprintf(out, _("The baseline run could not be recorded.\n"));
        goto done;
      }
      if (i == 0 && r == 1 && arms[0].broke) {
        fprintf(out, _("The baseline run broke the program (exit %d): nothing to compare a fix with.\n"),
                arms[0].exit_status);
        goto done;
      }
    }
  if (!base->has_pooled) {
    fprintf(out, _("The baseline reached no steady steps: nothing is compared. Let the command run longer, or give "
                   "it more --max-seconds.\n"));
    rc = GPUWHY_EXIT_USAGE;
    goto done;
  }
  for (int i = 1; i < narms; i++)
    judge(base, &arms[i]);
  /* the fixes to combine: those that helped, one value of each fix (the best) */
  int in_combined[1 + GW_TRY_MAX_FIXES] = {0}, nhelped = 0;
  for (int i = 1; i < narms; i++) {
    if (arms[i].verdict != TV_HELPED)
      continue;
    in_combined[i] = 1;
    for (int j = 1; j < narms; j++)
      if (j != i && arms[j].verdict == TV_HELPED && arms[j].plan.kind == arms[i].plan.kind &&
          (arms[j].c.throughput.point > arms[i].c.throughput.point ||
           (arms[j].c.throughput.point == arms[i].c.throughput.point && j < i)))
        in_combined[i] = 0;
    nhelped += in_combined[i];
  }
  if (nhelped >= 2) {
    combined.is_combined = 1;
    snprintf(combined.stem, sizeof combined.stem, "combined");
    size_t ul = 0, el = 0;
    for (int i = 1; i < narms; i++) {
      if (!in_combined[i])
        continue;
      ul += (size_t)snprintf(combined.label + ul, sizeof combined.label - ul, "%s%s", ul ? "+" : "", arms[i].label);
      el += (size_t)snprintf(combined.fixes_env + el, sizeof combined.fixes_env - el, "%s%s", el ? "," : "",
                             arms[i].fixes_env);
      if (ul >= sizeof combined.label || el >= sizeof combined.fixes_env)
        break;
    }
    t.runs_total += o->rounds;
    for (int r = 1; r <= o->rounds && !combined.broke && !combined.refused; r++)
      run_arm(&t, &combined, r);
    judge(base, &combined);
    have_combined = 1;
  }
  char date[64];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  char jpath[4200];
  snprintf(jpath, sizeof jpath, "%s/experiment.json", t.dir);
  FILE *jf = fopen(jpath, "w");
  if (jf) {
    write_json(jf, &t, arms, narms, have_combined ? &combined : NULL, date);
    fclose(jf);
  } else
    fprintf(stderr, _("gpuwhy experiment: cannot write %s: %s\n"), jpath, strerror(errno));
  if (o->json)
    write_json(out, &t, arms, narms, have_combined ? &combined : NULL, date);
  else
    print_text(out, &t, arms, narms, have_combined ? &combined : NULL);
  rc = GPUWHY_EXIT_OK;
done:
  for (int i = 0; i < narms; i++)
    free_arm(&arms[i]);
  free_arm(&combined);
  if (dx)
    gw_diagnosis_free(dx);
  if (o->from)
    gw_run_setup_free(&from_setup);
  return rc;
}
