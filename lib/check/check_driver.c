/* Driver group: is there an NVIDIA driver at all, which CUDA it supports
 * against the runtime the user's stack brings (check_cuda.c), and whether the
 * load asked for with --load could run. */
#include "check_internal.h"

#include <string.h>

static void check_driver(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (!ctx->have_driver) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_FAIL);
    /* gw_nvml_open's reason already starts with "no NVIDIA driver" when the
     * library is missing (the rest, its details, stays as it came); say it
     * first in every other case too. */
    if (strncmp(ctx->driver_err, "no NVIDIA driver", 16) == 0)
      gw_check_reason(it, _("no NVIDIA driver%s."), ctx->driver_err + 16);
    else
      gw_check_reason(it, _("no NVIDIA driver in use: %s."), ctx->driver_err);
    gw_check_reason(it, _("Nothing can run on a GPU here, so the GPU checks were skipped."));
    gw_check_fix(it, _("Install the NVIDIA driver for this GPU and reboot (check lspci | grep -i nvidia sees the "
                       "card); in a container, start it with the GPUs passed in (docker run --gpus all with the "
                       "NVIDIA container toolkit). If this machine is not meant to train, ignore this item."));
    return;
  }
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  const struct gw_driver_info *d = &ctx->driver;
  gw_check_reason(it, _("Driver %s"), d->driver_version[0] ? d->driver_version : _("(version unknown)"));
  if (d->nvml_version[0])
    gw_check_reason(it, _("(NVML %s)"), d->nvml_version);
  if (d->cuda_driver_version > 0)
    gw_check_reason(it, _("supports CUDA up to %d.%d;"), d->cuda_driver_version / 1000,
                    (d->cuda_driver_version % 1000) / 10);
  gw_check_reason(it, ctx->ngpus == 1 ? _("%u GPU found.") : _("%u GPUs found."), ctx->ngpus);
  gw_check_value(it, "gpus", ctx->ngpus);
  if (d->cuda_driver_version > 0)
    gw_check_value(it, "cuda_driver_version", d->cuda_driver_version);
}

static void check_load(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (!ctx->opts->load || !ctx->have_driver)
    return;
  if (!ctx->load_ran) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_WARN);
    gw_check_reason(it,
                    _("The load could not run: %s. The GPU items below are idle readings, where low clocks, a "
                      "high P-state and a narrow PCIe link are normal and prove nothing."),
                    ctx->load_why[0] ? ctx->load_why : _("no reason given"));
    gw_check_fix(it, _("Install PyTorch with CUDA for python3, or point GPUWHY_PYTHON at the interpreter you train "
                       "with, then run gpuwhy check --load again."));
    return;
  }
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  gw_check_reason(it, _("Ran a %.0f s matmul loop on each GPU with %s while sampling every 200 ms."),
                  ctx->report->load_s, ctx->load_python);
  for (unsigned g = 0; g < ctx->ngpus; g++) {
    const struct check_gpu *cg = &ctx->gpus[g];
    if (cg->load_note[0]) {
      gw_check_raise(it, GW_CHECK_WARN);
      gw_check_reason(it, _("GPU %u: %s."), g, cg->load_note);
      continue;
    }
    if (cg->load_tflops > 0)
      gw_check_reason(it, _("GPU %u reached %.0f TFLOP/s."), g, cg->load_tflops);
    if (g == 0 && cg->load_tflops > 0)
      gw_check_value(it, "gpu0_tflops", cg->load_tflops);
  }
  if (it->status == GW_CHECK_WARN)
    gw_check_fix(it, _("Items of the GPUs the load missed are idle readings; see the reason the load gave."));
}

const struct check_def gw_check_driver_rows[] = {
    {"driver", "nvml", N_("NVIDIA driver"), CHECK_SYSTEM, check_driver},
    {"driver", "cuda_runtime", N_("CUDA runtime"), CHECK_SYSTEM, gw_check_cuda_runtime},
    {"driver", "load", N_("GPU load"), CHECK_SYSTEM, check_load},
};
const size_t gw_check_driver_nrows = sizeof gw_check_driver_rows / sizeof gw_check_driver_rows[0];
