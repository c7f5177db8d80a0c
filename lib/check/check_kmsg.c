/* Kernel-log group: the driver's Xid errors since boot, one item per code
 * (how often, first and last time, which GPU, what it means and what to do,
 * from the Xid table), and the driver's other NVRM lines. A log that cannot
 * be read is one note: the checkup goes on without it. */
#include "check_internal.h"

#include <stdio.h>
#include <string.h>

/* The NVML index of the GPU at a kmsg PCI address ("0000:18:00"), or -1. */
static int gpu_at_pci(const struct check_ctx *ctx, const char *pci) {
  unsigned d, b, dev, f;
  if (gw_check_parse_pci(pci, &d, &b, &dev, &f) != 0)
    return -1;
  for (unsigned g = 0; g < ctx->ngpus; g++) {
    unsigned gd, gb, gdev, gf;
    if (gw_check_parse_pci(ctx->gpus[g].info.pci_bus_id, &gd, &gb, &gdev, &gf) == 0 && gd == d && gb == b &&
        gdev == dev)
      return (int)g;
  }
  return -1;
}

/* "0000:18:00 (GPU 0), 0000:3b:00" */
static void describe_pcis(const struct check_ctx *ctx, const char *pcis, char *out, size_t cap) {
  out[0] = '\0';
  size_t len = 0;
  const char *p = pcis;
  while (*p) {
    size_t n = strcspn(p, ",");
    char one[40];
    if (n < sizeof one) {
      memcpy(one, p, n);
      one[n] = '\0';
      int g = gpu_at_pci(ctx, one);
      int w = g >= 0 ? snprintf(out + len, cap - len, "%s%s (GPU %d)", len ? ", " : "", one, g)
                     : snprintf(out + len, cap - len, "%s%s", len ? ", " : "", one);
      if (w < 0 || (size_t)w >= cap - len)
        return;
      len += (size_t)w;
    }
    p += n;
    while (*p == ',' || *p == ' ')
      p++;
  }
}

static void format_boot_time(int64_t ms, char *buf, size_t cap) {
  if (ms < 0)
    ms = 0;
  snprintf(buf, cap, "%lld.%03lld s", (long long)(ms / 1000), (long long)(ms % 1000));
}

static void check_kmsg_access(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (ctx->kmsg_ok)
    return;
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
  gw_check_reason(it, _("The kernel log could not be read (%s), so Xid errors were not checked."), ctx->kmsg_err);
  gw_check_fix(it, _("Run gpuwhy check as root, or allow users to read it: sudo sysctl kernel.dmesg_restrict=0."));
}

static void check_xid(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (!ctx->kmsg_ok)
    return;
  if (ctx->xid_ngroups == 0) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
    gw_check_reason(it, _("No Xid errors in the kernel log (it reaches back to boot unless the log buffer "
                          "wrapped)."));
    gw_check_value(it, "xid_lines", 0);
    return;
  }
  for (int i = 0; i < ctx->xid_ngroups; i++) {
    const struct check_xid_group *x = &ctx->xid[i];
    const struct gw_xid_info *info = gw_xid_lookup(x->code);
    char id[24], title[32];
    snprintf(id, sizeof id, "xid.%d", x->code);
    snprintf(title, sizeof title, "Xid %d", x->code);
    /* Severity 2 needs a GPU reset or hardware service; the rest hit an
     * application or warn of trouble to come. */
    enum gw_check_status st = info && info->severity == 2 ? GW_CHECK_FAIL : GW_CHECK_WARN;
    struct gw_check_item *it = gw_check_add_named(ctx, def->group, id, title, -1, st);
    char first[32], last[32], where[200];
    format_boot_time(x->first_boot_ms, first, sizeof first);
    format_boot_time(x->last_boot_ms, last, sizeof last);
    describe_pcis(ctx, x->pcis, where, sizeof where);
    if (info)
      gw_check_reason(it, "%s:", info->mnemonic);
    if (x->count == 1)
      gw_check_reason(it, _("once, %s after boot"), first);
    else
      gw_check_reason(it, _("%d times, first %s and last %s after boot"), x->count, first, last);
    if (where[0])
      gw_check_reason(it, _("on %s."), where);
    else
      gw_check_reason(it, _("on an unnamed device."));
    if (info)
      /* TRANSLATORS: %s is the Xid table's meaning of the code, a clause
       * such as "the GPU no longer answers on PCIe: ..." */
      gw_check_reason(it, _("It means %s."), _(info->meaning));
    else
      gw_check_reason(it, _("This code is not in gpuwhy's table."));
    if (x->first_detail[0])
      gw_check_reason(it, _("First line: \"%s\"."), x->first_detail);
    gw_check_value(it, "xid", x->code);
    gw_check_value(it, "count", x->count);
    gw_check_value(it, "first_s_after_boot", (double)x->first_boot_ms / 1000.0);
    gw_check_value(it, "last_s_after_boot", (double)x->last_boot_ms / 1000.0);
    if (info) {
      gw_check_value(it, "severity", info->severity);
      /* The table's advice is a clause; make it a sentence. */
      char action[400];
      gw_strlcpy(action, _(info->action), sizeof action);
      if (action[0] >= 'a' && action[0] <= 'z')
        action[0] = (char)(action[0] - 'a' + 'A');
      /* TRANSLATORS: the Xid table's advice (a clause) made a sentence */
      gw_check_fix(it, _("%s."), action);
    } else {
      gw_check_fix(it, _("Look the code up in NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors)."));
    }
  }
  if (ctx->xid_dropped > 0) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_WARN);
    gw_check_reason(it, _("%d more Xid lines of further codes were not grouped (over %d distinct codes)."),
                    ctx->xid_dropped, CHECK_MAX_XID_CODES);
    gw_check_fix(it, _("Read them with dmesg | grep Xid."));
  }
}

static void check_nvrm(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (!ctx->kmsg_ok || (ctx->nvrm_count == 0 && !ctx->kmsg_notes[0]))
    return;
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
  if (ctx->nvrm_count > 0) {
    gw_check_value(it, "nvrm_lines", ctx->nvrm_count);
    int shown = ctx->nvrm_shown;
    gw_check_reason(it,
                    ctx->nvrm_count == 1 ? _("%d other driver (NVRM) line since boot%s")
                                         : _("%d other driver (NVRM) lines since boot%s"),
                    ctx->nvrm_count,
                    shown == 0   ? "."
                    : shown == 1 ? _("; the last:")
                                 : _("; the last ones:"));
    for (int i = 0; i < shown; i++)
      gw_check_reason(it, "\"%s\"%s", ctx->nvrm_last[i], i + 1 < shown ? ";" : ".");
    gw_check_fix(it, _("Most are start-up messages; read them all with dmesg | grep NVRM when a GPU misbehaves."));
  }
  if (ctx->kmsg_notes[0])
    gw_check_reason(it, _("While reading: %s."), ctx->kmsg_notes);
}

const struct check_def gw_check_kmsg_rows[] = {
    {"kmsg", "access", N_("kernel log"), CHECK_SYSTEM, check_kmsg_access},
    {"kmsg", "xid", N_("Xid errors"), CHECK_SYSTEM, check_xid},
    {"kmsg", "nvrm", N_("driver messages"), CHECK_SYSTEM, check_nvrm},
};
const size_t gw_check_kmsg_nrows = sizeof gw_check_kmsg_rows / sizeof gw_check_kmsg_rows[0];
