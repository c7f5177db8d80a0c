/* The ground-truth file a training program leaves beside its recording
 * (NAME.truth.json: steps, samples per step, the declared change), read by
 * gpuwhy compare, baseline and sweep through lib/core/json_path.h. The
 * recording is a small valid one made and loaded once; the input is the
 * truth file, read into the run summary as gw_run_summary_load does
 * (gw_run_summary_begin, then gw_run_summary_from_recording). The first
 * half reads only the recording, so it runs once: each input starts from a
 * copy of that summary (opening the file and parsing its schema cost more
 * than the rest). */
#include "analysis/series.h"
#include "compare/run_summary.h"
#include "compare/run_load.h"
#include "fuzz_util.h"
#include "store/store.h"

static char db_path[600], truth_path[600];
static struct gw_recording *rec;
/* gw_run_summary_begin on the recording; owns the setup's heap fields,
 * which the per-input copies share and never free. */
static struct gw_run_summary begun;

/* Two seconds of one GPU at 100 ms: enough for a summary. */
static void make_recording(void) {
  struct gw_store *st = NULL;
  struct gw_err err = {{0}};
  if (gw_store_create(&st, db_path, &err) != GW_OK) {
    fprintf(stderr, "fuzz_truth: %s\n", err.msg);
    exit(1);
  }
  const int64_t t0 = 1795975639000000000LL;
  struct gw_run_info run = {0};
  run.started_ns = t0;
  run.command_json = "[\"python3\",\"train.py\",\"--batch-size\",\"32\"]";
  run.target_pid = 4242;
  run.interval_ms = 100;
  run.source = "record";
  struct gw_gpu_info info;
  memset(&info, 0, sizeof info);
  if (gw_store_put_run(st, &run) != GW_OK || gw_store_put_gpu_info(st, &info) != GW_OK)
    abort();
  for (int i = 0; i < 20; i++) {
    struct gw_gpu_sample s;
    memset(&s, 0, sizeof s);
    s.t_ns = t0 + i * 100000000LL;
    s.gpu = 0;
    for (int m = 0; m < GW_GPU_NMETRICS; m++)
      gw_gpu_set(&s, (enum gw_gpu_metric)m, i % 3 ? 80 : 20);
    if (gw_store_put_gpu_sample(st, &s, (1u << GW_TABLE_FAST) | (1u << GW_TABLE_SLOW)) != GW_OK)
      abort();
  }
  if (gw_store_finish_run(st, t0 + 2000000000LL, 0) != GW_OK)
    abort();
  gw_store_close(st);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_path(db_path, sizeof db_path, "run.db");
  fuzz_path(truth_path, sizeof truth_path, "run.truth.json");
  make_recording();
  struct gw_err err = {{0}};
  if (gw_recording_load(db_path, &rec, &err) != GW_OK) {
    fprintf(stderr, "fuzz_truth: %s\n", err.msg);
    exit(1);
  }
  /* no truth file yet: begin reads the run's setup and meta only */
  if (gw_run_summary_begin(rec, db_path, &begun, &err) != GW_OK) {
    fprintf(stderr, "fuzz_truth: %s\n", err.msg);
    exit(1);
  }
  FUZZ_CHECK(begun.step_s == NULL && begun.nsteps == 0);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_write_file(truth_path, data, size);
  struct gw_run_summary *s = malloc(sizeof *s);
  if (!s)
    abort();
  *s = begun;
  struct gw_err err = {{0}};
  gw_status rc = gw_run_summary_from_recording(rec, db_path, s, &err);
  if (rc == GW_OK) {
    FUZZ_CHECK(s->nsteps == 0 || s->step_s != NULL);
    for (size_t i = 0; i < s->nsteps; i++)
      FUZZ_CHECK(s->step_s[i] >= 0); /* a step never takes negative time */
  } else {
    FUZZ_CHECK(err.msg[0] != '\0');
  }
  free(s->step_s); /* the copy's own; the setup stays begun's */
  free(s);
  return 0;
}
