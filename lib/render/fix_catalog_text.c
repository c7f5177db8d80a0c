/* The words of the fix catalogue: what each fix changes, refused --fix
 * arguments and the reasons of predictions (see fix_catalog_text.h). */
#include "render/fix_catalog_text.h"

#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

/* What each fix of the catalogue changes, keyed by its name (English
 * msgids, marked with N_). */
static const struct {
  const char *name, *changes;
} CHANGES[] = {
    {"workers",
     N_("DataLoader num_workers: batches made in parallel processes; numerics unchanged (the order of random "
        "augmentations per worker may differ)")},
    {"persistent_workers", N_("DataLoader workers kept between epochs; numerics unchanged")},
    {"prefetch_factor", N_("batches each worker prepares ahead; numerics unchanged")},
    {"pin_memory", N_("DataLoader batches in page-locked memory; numerics unchanged")},
    {"non_blocking", N_("host-to-device copies from pinned memory overlap compute; numerics unchanged")},
    {"cudnn_benchmark",
     N_("cuDNN picks the fastest convolution algorithm per shape; results may differ in the last bits")},
    {"tf32",
     N_("float32 matmuls and convolutions on tensor cores in TF32: 10-bit mantissa inputs, float32 accumulation "
        "(changes numerics)")},
    {"batch_size",
     N_("DataLoader batch size: more samples per step; changes the optimisation (learning rate, steps per "
        "epoch); compared in samples/s")},
};

const char *gw_fix_kind_changes(const char *name, int translate) {
  for (size_t i = 0; name && i < sizeof CHANGES / sizeof CHANGES[0]; i++)
    if (strcmp(CHANGES[i].name, name) == 0)
      return translate ? _(CHANGES[i].changes) : CHANGES[i].changes;
  return "";
}

void gw_fix_parse_status_text(enum gw_fix_parse_status status, const char *arg, char *buf, size_t cap) {
  /* the fix's name: arg up to '=' */
  char name[64];
  size_t n = strcspn(arg, "=");
  snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), arg);
  switch (status) {
  case GW_FIX_PARSE_OK:
    break;
  case GW_FIX_PARSE_NO_NAME:
    snprintf(buf, cap, _("unknown fix '%s'"), arg);
    return;
  case GW_FIX_PARSE_UNKNOWN:
    snprintf(buf, cap,
             _("unknown fix '%s' (there are workers, persistent_workers, prefetch_factor, pin_memory, "
               "non_blocking, cudnn_benchmark, tf32, batch_size)"),
             name);
    return;
  case GW_FIX_PARSE_TAKES_NO_VALUE:
    snprintf(buf, cap, _("the fix %s takes no value, got '%s'"), name, arg);
    return;
  case GW_FIX_PARSE_BAD_COUNT:
    snprintf(buf, cap, _("the fix %s wants a count of at least 1, got '%s'"), name, arg);
    return;
  case GW_FIX_PARSE_BAD_BATCH:
    snprintf(buf, cap, _("the fix %s wants a batch size N or a factor xK (K at least 2), got '%s'"), name, arg);
    return;
  }
  if (cap)
    buf[0] = 0;
}

#define TR(translate, s) ((translate) ? _(s) : (s))

void gw_fix_reason_text(const struct gw_fix_plan *p, int translate, char *buf, size_t cap) {
  double pct = p->addressed_share * 100;
  switch (p->reason) {
  case GW_FIXR_NOT_FOUND:
    snprintf(buf, cap, "%s", TR(translate, N_("no change (<2%): the cause it addresses was not found")));
    return;
  case GW_FIXR_INPUT_FINDING:
    snprintf(buf, cap, TR(translate, N_("the input pipeline finding: %.0f%% of the active time")), pct);
    return;
  case GW_FIXR_INPUT_ATTR:
    snprintf(buf, cap, TR(translate, N_("the training thread waited for data %.0f%% of the time")), pct);
    return;
  case GW_FIXR_H2D:
    snprintf(buf, cap, TR(translate, N_("host-to-device copies held the training thread %.0f%% of the time")), pct);
    return;
  case GW_FIXR_SMALL_BATCH:
    snprintf(buf, cap, TR(translate, N_("the small-batch finding: %.0f%% of the active time; samples/s at most x%ld")),
             pct, p->count);
    return;
  case GW_FIXR_TF32:
    snprintf(
        buf, cap,
        TR(translate, N_("float32 matmuls in the productive time: %.0f%% of it saved at the TF32/FP32 peak ratio")),
        pct);
    return;
  case GW_FIXR_TF32_UNKNOWN:
    snprintf(buf, cap, "%s",
             TR(translate, N_("no change predicted: the float32 share of the FLOPs or the GPU's peaks are unknown")));
    return;
  case GW_FIXR_NOT_MEASURABLE:
    snprintf(buf, cap, "%s", TR(translate, N_("no change predicted: no recording measures what it addresses")));
    return;
  case GW_FIXR_BATCH_UNKNOWN:
    snprintf(buf, cap, "%s",
             TR(translate, N_("no change predicted, no bound: the recorded batch size is unknown (give xK instead)")));
    return;
  }
  buf[0] = 0;
}
