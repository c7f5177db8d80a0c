/* The short GPU load behind `gpuwhy check --load`. Idle GPUs look alarming
 * for healthy reasons (P8, low clocks, a down-trained PCIe link), so the
 * checks mean most under work. gpuwhy has no CUDA code of its own: when
 * python3 with PyTorch is there, one child per GPU runs a bf16 matmul loop
 * while the GPUs are sampled every 200 ms; otherwise the check says why not. */
#include "check_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOAD_TICK_MS 200
#define LOAD_READY_TIMEOUT_MS 90000 /* importing torch and starting CUDA can take a while */
#define LOAD_TAIL_MS 15000          /* past the load's own length before giving up */

/* One child per GPU, CUDA_VISIBLE_DEVICES pins it. Each prints marked lines:
 * "ready" when the loop starts, "done <matmuls> <seconds> <TFLOP/s>" at the
 * end, or "error <why>". */
static const char load_code[] =
    "import sys, time\n"
    "try:\n"
    "    import torch\n"
    "except Exception as e:\n"
    "    print('gpuwhy-load error PyTorch is not installed for this Python (%s)' % type(e).__name__, flush=True)\n"
    "    sys.exit(3)\n"
    "try:\n"
    "    if not torch.cuda.is_available():\n"
    "        print('gpuwhy-load error PyTorch sees no CUDA GPU (torch.version.cuda is %s)' % torch.version.cuda,"
    " flush=True)\n"
    "        sys.exit(3)\n"
    "    seconds = float(sys.argv[2])\n"
    "    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16\n"
    "    n = 8192\n"
    "    a = torch.randn(n, n, device='cuda', dtype=dtype)\n"
    "    b = torch.randn(n, n, device='cuda', dtype=dtype)\n"
    "    for _ in range(3):\n"
    "        c = a @ b\n"
    "    torch.cuda.synchronize()\n"
    "    print('gpuwhy-load ready', flush=True)\n"
    "    t0 = time.monotonic()\n"
    "    k = 0\n"
    "    while time.monotonic() - t0 < seconds:\n"
    "        for _ in range(4):\n"
    "            c = a @ b\n"
    "        torch.cuda.synchronize()\n"
    "        k += 4\n"
    "    el = time.monotonic() - t0\n"
    "    print('gpuwhy-load done %d %.3f %.1f' % (k, el, 2.0 * n ** 3 * k / el / 1e12), flush=True)\n"
    "except Exception as e:\n"
    "    msg = str(e).splitlines()[0] if str(e) else ''\n"
    "    print('gpuwhy-load error %s: %s' % (type(e).__name__, msg[:200]), flush=True)\n"
    "    sys.exit(4)\n";

enum child_state { CHILD_WAITING, CHILD_RUNNING, CHILD_DONE, CHILD_FAILED };

struct load_run {
  struct check_ctx *ctx;
  int n;
  unsigned gpu_of[64];
  enum child_state state[64];
  struct check_child kids[64];
  double energy_start_mj[64];
  int64_t start_ns[64];
  char error[64][240];
};

/* Fold one sample into the peaks: lowest P-state, every clock reason seen,
 * the highest of the rest (cumulative counters: the latest). */
static void fold_peak(struct gw_gpu_sample *peak, const struct gw_gpu_sample *s) {
  for (int i = 0; i < GW_GPU_NMETRICS; i++) {
    enum gw_gpu_metric m = (enum gw_gpu_metric)i;
    if (!gw_gpu_valid(s, m))
      continue;
    double v = s->values[m];
    if (!gw_gpu_valid(peak, m))
      gw_gpu_set(peak, m, v);
    else if (m == GW_M_pstate)
      gw_gpu_set(peak, m, v < peak->values[m] ? v : peak->values[m]);
    else if (m == GW_M_clock_reasons)
      gw_gpu_set(peak, m, (double)((uint64_t)v | (uint64_t)peak->values[m]));
    else if (v > peak->values[m])
      gw_gpu_set(peak, m, v);
  }
}

static void sample_running(struct load_run *lr, int k, unsigned tiers) {
  struct check_ctx *ctx = lr->ctx;
  struct check_gpu *gpu = &ctx->gpus[lr->gpu_of[k]];
  struct gw_gpu_sample s;
  int64_t t = gw_now_realtime_ns();
  if (gpu->lost || gw_gpu_sample(ctx->nv, gpu->index, t, tiers, &s, NULL) != GW_OK) {
    gpu->lost = 1;
    snprintf(gpu->lost_why, sizeof gpu->lost_why, "the driver lost it under load");
    lr->state[k] = CHILD_FAILED;
    snprintf(lr->error[k], sizeof lr->error[k], "the GPU was lost under load");
    return;
  }
  fold_peak(&gpu->load, &s);
  gpu->load_samples++;
  double sm_mhz;
  if (gw_check_metric(&s, GW_M_sm_clock_mhz, &sm_mhz) && gpu->load_sm_clock_n < CHECK_LOAD_CLOCK_SAMPLES)
    gpu->load_sm_clock_mhz[gpu->load_sm_clock_n++] = sm_mhz;
  double energy;
  if (!gw_check_metric(&s, GW_M_energy_mj, &energy))
    return;
  if (lr->start_ns[k] == 0) {
    lr->energy_start_mj[k] = energy;
    lr->start_ns[k] = t;
  } else if (t > lr->start_ns[k] && energy >= lr->energy_start_mj[k]) {
    gpu->load_avg_power_w = (energy - lr->energy_start_mj[k]) / ((double)(t - lr->start_ns[k]) / 1e6);
  }
}

static void on_child_line(void *cookie, int k, const char *line) {
  struct load_run *lr = cookie;
  if (strncmp(line, "gpuwhy-load ", 12) != 0)
    return;
  const char *what = line + 12;
  if (strcmp(what, "ready") == 0 && lr->state[k] == CHILD_WAITING) {
    lr->state[k] = CHILD_RUNNING;
    sample_running(lr, k, GW_GPU_FAST | GW_GPU_SLOW | GW_GPU_RARE);
  } else if (strncmp(what, "done ", 5) == 0 && lr->state[k] == CHILD_RUNNING) {
    /* The end sample reads the rare tier again: energy over the load and the
     * HW slowdown counters after it. */
    sample_running(lr, k, GW_GPU_FAST | GW_GPU_SLOW | GW_GPU_RARE);
    if (lr->state[k] != CHILD_RUNNING)
      return;
    lr->state[k] = CHILD_DONE;
    const char *last_space = strrchr(what, ' ');
    double tflops;
    if (last_space && gw_parse_double(last_space + 1, &tflops) == 0 && tflops > 0)
      lr->ctx->gpus[lr->gpu_of[k]].load_tflops = tflops;
  } else if (strncmp(what, "error ", 6) == 0) {
    lr->state[k] = CHILD_FAILED;
    gw_strlcpy(lr->error[k], what + 6, sizeof lr->error[k]);
  }
}

static int all_settled(const struct load_run *lr) {
  for (int k = 0; k < lr->n; k++)
    if (lr->state[k] == CHILD_WAITING || lr->state[k] == CHILD_RUNNING)
      return 0;
  return 1;
}

/* A child that exited or closed its output without finishing failed. */
static void settle_silent_children(struct load_run *lr) {
  for (int k = 0; k < lr->n; k++) {
    if ((lr->state[k] == CHILD_WAITING || lr->state[k] == CHILD_RUNNING) && lr->kids[k].fd < 0) {
      lr->state[k] = CHILD_FAILED;
      if (!lr->error[k][0])
        snprintf(lr->error[k], sizeof lr->error[k], "the load process ended early%s%.200s",
                 lr->kids[k].last_line[0] ? ": " : "", lr->kids[k].last_line);
    }
  }
}

static int start_children(struct load_run *lr, const char *python) {
  struct check_ctx *ctx = lr->ctx;
  char seconds[32];
  snprintf(seconds, sizeof seconds, "%.3f", ctx->report->load_s);
  char *argv[] = {(char *)python, "-c", (char *)load_code, "load", seconds, NULL};
  int started = 0;
  for (unsigned g = 0; g < ctx->ngpus && lr->n < 64; g++) {
    struct check_gpu *gpu = &ctx->gpus[g];
    if (gpu->lost)
      continue;
    if (gpu->info.mig_enabled == 1) {
      snprintf(gpu->load_note, sizeof gpu->load_note, _("MIG is enabled, and the load only runs on whole GPUs"));
      continue;
    }
    /* CUDA numbers GPUs its own way; the UUID names the same GPU as NVML. */
    char env[160];
    if (gpu->info.uuid[0])
      snprintf(env, sizeof env, "CUDA_VISIBLE_DEVICES=%s", gpu->info.uuid);
    else
      snprintf(env, sizeof env, "CUDA_VISIBLE_DEVICES=%u", g);
    int k = lr->n;
    struct gw_err err = {{0}};
    if (gw_check_child_start(&lr->kids[k], argv, env, &err) != 0) {
      gw_strlcpy(ctx->load_why, err.msg, sizeof ctx->load_why);
      return started;
    }
    lr->gpu_of[k] = g;
    lr->state[k] = CHILD_WAITING;
    lr->n++;
    started++;
  }
  return started;
}

void gw_check_gather_load(struct check_ctx *ctx) {
  if (!ctx->have_driver || ctx->ngpus == 0) {
    snprintf(ctx->load_why, sizeof ctx->load_why, _("there is no GPU to load"));
    return;
  }
  const char *python = gw_check_program(ctx, ctx->opts->python, "GPUWHY_PYTHON", "python3");
  if (!python) {
    snprintf(ctx->load_why, sizeof ctx->load_why, _("no Python to run it (with --root, name one with GPUWHY_PYTHON)"));
    return;
  }
  gw_strlcpy(ctx->load_python, python, sizeof ctx->load_python);
  struct load_run *lr = gw_xcalloc(1, sizeof *lr);
  lr->ctx = ctx;
  if (start_children(lr, python) == 0) {
    if (!ctx->load_why[0])
      snprintf(ctx->load_why, sizeof ctx->load_why, _("no GPU could take it"));
    free(lr);
    return;
  }
  int64_t begin_ms = gw_now_monotonic_ns() / 1000000;
  int64_t give_up_ms = begin_ms + LOAD_READY_TIMEOUT_MS + (int64_t)(ctx->report->load_s * 1000) + LOAD_TAIL_MS;
  int64_t next_tick_ms = begin_ms + LOAD_TICK_MS;
  while (!all_settled(lr)) {
    int64_t now = gw_now_monotonic_ns() / 1000000;
    if (now >= give_up_ms)
      break;
    if (now >= next_tick_ms) {
      for (int k = 0; k < lr->n; k++)
        if (lr->state[k] == CHILD_RUNNING)
          sample_running(lr, k, GW_GPU_FAST | GW_GPU_SLOW);
      next_tick_ms = now + LOAD_TICK_MS;
      continue;
    }
    gw_check_children_poll(lr->kids, lr->n, (int)(next_tick_ms - now), on_child_line, lr);
    settle_silent_children(lr);
  }
  for (int k = 0; k < lr->n; k++) {
    struct check_gpu *gpu = &ctx->gpus[lr->gpu_of[k]];
    if (lr->state[k] == CHILD_WAITING || lr->state[k] == CHILD_RUNNING)
      snprintf(lr->error[k], sizeof lr->error[k], "the load did not finish in time and was stopped");
    if (lr->state[k] != CHILD_DONE)
      snprintf(gpu->load_note, sizeof gpu->load_note, "%s", lr->error[k][0] ? lr->error[k] : _("the load failed"));
    if (gpu->load_samples > 0)
      ctx->load_ran = 1;
    gw_check_child_stop(&lr->kids[k]);
  }
  if (!ctx->load_ran && !ctx->load_why[0])
    snprintf(ctx->load_why, sizeof ctx->load_why, _("%.300s (with %.90s)"),
             lr->n > 0 ? ctx->gpus[lr->gpu_of[0]].load_note : _("no output"), python);
  free(lr);
}
