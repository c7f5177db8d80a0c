/* GPU group: one row per property of each GPU. A row judges the load peaks
 * when --load ran, else the idle snapshot, and says which it saw: an idle GPU
 * in P8 at low clocks with a slow PCIe link is healthy, the same readings
 * under work are not. */
#include "check_internal.h"

#include "analysis/stats.h"
#include "sources/clock_reasons.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

/* "under load" or "at idle" or "now" for a GPU busy with someone else's work. */
static int gpu_idle_now(const struct gw_gpu_sample *s) {
  double v;
  if (gw_check_metric(s, GW_M_clock_reasons, &v))
    return ((uint64_t)v & GW_CLOCK_REASON_IDLE) != 0;
  if (gw_check_metric(s, GW_M_util_gpu_pct, &v))
    return v < 5;
  return 1;
}

/* How a reading was taken, for the reason text. */
static const char *seen_when(const struct gw_gpu_sample *s, int under_load) {
  if (under_load)
    return _("under the load");
  return gpu_idle_now(s) ? _("at idle") : _("now, busy with other work");
}

/* Print a duration in seconds with sensible precision. */
static void format_seconds(double s, char *buf, size_t cap) {
  if (s == 0)
    snprintf(buf, cap, "0 s");
  else if (s < 10)
    snprintf(buf, cap, "%.3f s", s);
  else if (s < 1000)
    snprintf(buf, cap, "%.1f s", s);
  else
    snprintf(buf, cap, "%.0f s", s);
}

/* ---- rows ---- */

static void check_clocks(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  int under_load;
  const struct gw_gpu_sample *s = gw_check_gpu_sample(gpu, &under_load);
  double pstate = -1, sm = -1, reasons_v = 0;
  int have_pstate = gw_check_metric(s, GW_M_pstate, &pstate);
  int have_sm = gw_check_metric(s, GW_M_sm_clock_mhz, &sm);
  int have_reasons = gw_check_metric(s, GW_M_clock_reasons, &reasons_v);
  uint64_t reasons = have_reasons ? (uint64_t)reasons_v : 0;
  unsigned max_mhz = gpu->info.sm_clock_max_mhz;
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (!have_pstate && !have_sm) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver reports neither the P-state nor the SM clock."));
    return;
  }
  if (have_pstate)
    gw_check_value(it, "pstate", pstate);
  if (have_sm && !(under_load && gpu->load_sm_clock_n > 0))
    gw_check_value(it, "sm_clock_mhz", sm);
  if (max_mhz)
    gw_check_value(it, "sm_clock_max_mhz", max_mhz);
  char pstate_text[16] = "P?", clock_text[192];
  gw_strlcpy(clock_text, _("SM clock unknown"), sizeof clock_text);
  if (have_pstate)
    snprintf(pstate_text, sizeof pstate_text, "P%.0f", pstate);
  /* Under the load the clock moves (a GPU at its power limit trades clock
   * for power every few milliseconds): judge the median, show the range. */
  double sm_min = sm, sm_max = sm;
  int nclock = under_load ? gpu->load_sm_clock_n : 0;
  if (nclock > 0) {
    sm_min = gw_stats_quantile(gpu->load_sm_clock_mhz, (size_t)nclock, 0);
    sm_max = gw_stats_quantile(gpu->load_sm_clock_mhz, (size_t)nclock, 1);
    sm = gw_stats_median(gpu->load_sm_clock_mhz, (size_t)nclock);
    gw_check_value(it, "sm_clock_mhz", sm);
    gw_check_value(it, "sm_clock_min_mhz", sm_min);
    gw_check_value(it, "sm_clock_max_seen_mhz", sm_max);
    gw_check_value(it, "sm_clock_samples", nclock);
  }
  if (have_sm && max_mhz && nclock > 1)
    snprintf(clock_text, sizeof clock_text,
             _("SM clock median %.0f of %u MHz (%.0f%%), from %.0f to %.0f MHz in %d samples"), sm, max_mhz,
             100.0 * sm / max_mhz, sm_min, sm_max, nclock);
  else if (have_sm && max_mhz)
    snprintf(clock_text, sizeof clock_text, _("SM clock %.0f of %u MHz (%.0f%%)"), sm, max_mhz, 100.0 * sm / max_mhz);
  else if (have_sm)
    snprintf(clock_text, sizeof clock_text, _("SM clock %.0f MHz"), sm);

  if (!under_load && gpu_idle_now(s)) {
    gw_check_reason(it,
                    _("Idle: %s, %s. At idle a high P-state and low clocks are normal: the driver raises them "
                      "as soon as work arrives."),
                    pstate_text, clock_text);
    if (!ctx->opts->load)
      gw_check_reason(it, _("Run gpuwhy check --load to see the clocks under work."));
    return;
  }
  gw_check_reason(it, _("%s: %s, %s."), under_load ? _("Under the load") : _("Busy with other work now"), pstate_text,
                  clock_text);
  if (have_pstate && pstate > 2) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it,
                    _("A GPU doing work should sit in P0 (or P2, the CUDA default of GeForce cards); %s means "
                      "the driver keeps it in a low-power state."),
                    pstate_text);
    gw_check_fix(it,
                 _("Look at nvidia-smi -q -d PERFORMANCE,CLOCK for locked clocks or a power-saving policy; "
                   "reset locked clocks with sudo nvidia-smi -rgc -i %u."),
                 gpu->index);
  } else if (have_pstate && pstate == 2) {
    gw_check_reason(it, _("P2 is the P-state GeForce cards use for CUDA work (memory clock a little lower)."));
  }
  if (have_sm && max_mhz && sm < 0.85 * max_mhz) {
    if (reasons & GW_CLOCK_REASON_SW_POWER_CAP) {
      gw_check_reason(it, _("The clock sits below its maximum because the GPU is at its power limit (SW power "
                            "cap): that is its power budget at work, not a fault."));
    } else if (reasons & (GW_CLOCK_REASONS_HW | GW_CLOCK_REASON_SW_THERMAL)) {
      gw_check_raise(it, GW_CHECK_WARN);
      gw_check_reason(it, _("The clock is held down by slowdowns (see the clock event reasons item)."));
    } else {
      gw_check_raise(it, GW_CHECK_WARN);
      gw_check_reason(it, _("The clock stays under 85%% of its maximum with no clock event reason given: locked "
                            "or application clocks are the usual cause."));
      gw_check_fix(it, _("Check nvidia-smi -q -d CLOCK; reset locked clocks with sudo nvidia-smi -rgc -i %u."),
                   gpu->index);
    }
  }
}

static void check_power_limit(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  double limit_mw = 0, power_mw = 0;
  int have_limit = gw_check_gpu_metric(gpu, GW_M_power_limit_mw, &limit_mw, NULL);
  int under_load;
  const struct gw_gpu_sample *s = gw_check_gpu_sample(gpu, &under_load);
  int have_power = gw_check_metric(s, GW_M_power_mw, &power_mw);
  const struct gw_gpu_info *in = &gpu->info;
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (!have_limit || in->power_default_limit_mw == 0) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver does not report %s."),
                    have_limit ? _("the default power limit") : _("the enforced power limit"));
    if (have_power)
      gw_check_reason(it, _("Power draw %s: %.0f W."), seen_when(s, under_load), power_mw / 1000);
    return;
  }
  gw_check_value(it, "power_limit_mw", limit_mw);
  gw_check_value(it, "power_default_limit_mw", in->power_default_limit_mw);
  if (in->power_max_limit_mw)
    gw_check_value(it, "power_max_limit_mw", in->power_max_limit_mw);
  char range[128] = "";
  if (in->power_min_limit_mw && in->power_max_limit_mw)
    snprintf(range, sizeof range, _(" (allowed %u-%u W)"), in->power_min_limit_mw / 1000,
             in->power_max_limit_mw / 1000);
  /* A watt of slack: limits are whole watts but reported in mW. */
  if (limit_mw + 1000 < in->power_default_limit_mw) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it,
                    _("Enforced limit %.0f W is below the default %u W%s: under full load the GPU runs slower than "
                      "it can (%.0f%% of its default power budget)."),
                    limit_mw / 1000, in->power_default_limit_mw / 1000, range,
                    100.0 * limit_mw / in->power_default_limit_mw);
    gw_check_fix(it,
                 _("Restore it with sudo nvidia-smi -i %u -pl %u. If nobody lowered it by hand, a system power "
                   "or thermal policy does: nvidia-smi -q -d POWER shows the requested and enforced limits."),
                 gpu->index, in->power_default_limit_mw / 1000);
  } else {
    gw_check_reason(it, _("Enforced limit %.0f W, %s the default %u W%s."), limit_mw / 1000,
                    limit_mw > in->power_default_limit_mw + 1000 ? _("above") : _("at"),
                    in->power_default_limit_mw / 1000, range);
  }
  if (have_power) {
    gw_check_value(it, under_load ? "power_peak_mw" : "power_mw", power_mw);
    gw_check_reason(it, _("Power draw %s: %.0f W%s."), seen_when(s, under_load), power_mw / 1000,
                    under_load ? _(" at its highest") : "");
  }
  if (under_load && gpu->load_avg_power_w > 0) {
    gw_check_value(it, "load_avg_power_w", gpu->load_avg_power_w);
    gw_check_reason(it, _("Average over the load from the energy counter: %.0f W."), gpu->load_avg_power_w);
  }
}

static void check_temperature(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  int under_load;
  const struct gw_gpu_sample *s = gw_check_gpu_sample(gpu, &under_load);
  double temp = 0, mem_temp = 0;
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (!gw_check_metric(s, GW_M_temp_gpu_c, &temp)) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver does not report the GPU temperature."));
    return;
  }
  int slowdown = gpu->info.temp_slowdown_c, shutdown = gpu->info.temp_shutdown_c;
  gw_check_value(it, "temp_c", temp);
  if (slowdown > 0)
    gw_check_value(it, "temp_slowdown_c", slowdown);
  if (shutdown > 0)
    gw_check_value(it, "temp_shutdown_c", shutdown);
  char limits[96] = "";
  if (slowdown > 0 && shutdown > 0)
    snprintf(limits, sizeof limits, _(" (slowdown at %d C, shutdown at %d C)"), slowdown, shutdown);
  else if (slowdown > 0)
    snprintf(limits, sizeof limits, _(" (slowdown at %d C)"), slowdown);
  gw_check_reason(it, _("%.0f C %s%s%s."), temp, seen_when(s, under_load), under_load ? _(" at its highest") : "",
                  limits);
  if (gw_check_metric(s, GW_M_temp_mem_c, &mem_temp)) {
    gw_check_value(it, "temp_mem_c", mem_temp);
    gw_check_reason(it, _("Memory %.0f C."), mem_temp);
  }
  if (slowdown <= 0) {
    gw_check_reason(it, _("The driver gives no slowdown threshold to compare with."));
    return;
  }
  if (temp >= slowdown) {
    gw_check_raise(it, GW_CHECK_FAIL);
    gw_check_reason(it, _("The GPU is at its slowdown threshold: its clocks are being cut to cool it."));
  } else if (temp >= slowdown - 10) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it, _("Only %.0f C below the slowdown threshold%s."), slowdown - temp,
                    !under_load && gpu_idle_now(s) ? _(", and that is without work") : "");
  } else {
    gw_check_reason(it, _("%.0f C of headroom before slowdown."), slowdown - temp);
    if (!under_load && gpu_idle_now(s))
      gw_check_reason(it, _("Under sustained work it runs much warmer; --load shows how much."));
  }
  if (it->status >= GW_CHECK_WARN)
    gw_check_fix(it, _("Improve cooling: airflow and fan settings, dust in the heat sinks, blanking panels, the room "
                       "or rack inlet temperature. nvidia-smi -q -d TEMPERATURE,PERFORMANCE shows the thresholds and "
                       "active slowdowns."));
}

static void check_clock_reasons(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  int under_load;
  const struct gw_gpu_sample *s = gw_check_gpu_sample(gpu, &under_load);
  double v;
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (!gw_check_metric(s, GW_M_clock_reasons, &v)) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver does not report clock event reasons."));
    return;
  }
  uint64_t mask = (uint64_t)v;
  /* Under the load the idle bit only marks the first moments. */
  if (under_load)
    mask &= ~(uint64_t)GW_CLOCK_REASON_IDLE;
  gw_check_value(it, "clock_reasons", (double)mask);
  char words[300];
  gw_clock_reasons_describe(mask, 1, words, sizeof words);
  if (mask == 0)
    gw_check_reason(it, _("None %s: clocks as high as allowed."), under_load ? _("during the load") : _("now"));
  else
    gw_check_reason(it, _("%s 0x%llx: %s."), under_load ? _("During the load") : _("Now"), (unsigned long long)mask,
                    words);
  if (mask & GW_CLOCK_REASONS_HW) {
    gw_check_raise(it, GW_CHECK_FAIL);
    gw_check_reason(it, _("HW slowdowns cut the clocks by half or more; they come from the board (overheating, a "
                          "power brake from the system, a supply that cannot deliver)."));
    gw_check_fix(it, _("Fix the hardware before tuning code: check cooling, power cables and the power supply, and "
                       "the server's event log (BMC); nvidia-smi -q -d PERFORMANCE names the active slowdown."));
  } else if (mask & GW_CLOCK_REASON_SW_THERMAL) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it, _("The driver lowers clocks to keep the GPU under its maximum operating temperature."));
    gw_check_fix(it, _("Improve cooling (airflow, fans, inlet temperature); see the temperature item."));
  } else if (mask & GW_CLOCK_REASON_APP_CLOCKS) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("Applications clocks are set and cap the clock."));
    gw_check_fix(it, _("Reset them with sudo nvidia-smi -rac -i %u unless they were set on purpose."), gpu->index);
  } else if (mask & GW_CLOCK_REASON_SW_POWER_CAP) {
    gw_check_reason(it, _("The SW power cap means the GPU is at its power limit and trades clock for power: that is "
                          "the physics of a busy GPU, not a fault."));
  }
}

static void check_throttle_time(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  static const struct {
    enum gw_gpu_metric metric;
    const char *name;
    const char *value_name;
  } counters[] = {
      {GW_M_viol_hw_thermal_ns, N_("HW thermal slowdown"), "hw_thermal_s"},
      {GW_M_viol_hw_power_brake_ns, N_("HW power brake"), "hw_power_brake_s"},
      {GW_M_viol_sw_thermal_ns, N_("SW thermal slowdown"), "sw_thermal_s"},
      {GW_M_viol_power_cap_ns, N_("SW power cap"), "sw_power_cap_s"},
      {GW_M_viol_sync_boost_ns, N_("sync boost"), "sync_boost_s"},
  };
  double seconds[5];
  int have[5], any = 0;
  for (int i = 0; i < 5; i++) {
    double ns = 0;
    have[i] = gw_check_gpu_metric(gpu, counters[i].metric, &ns, NULL);
    seconds[i] = ns / 1e9;
    any |= have[i];
  }
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (!any) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver does not report the throttle time counters."));
    return;
  }
  char list[400] = "";
  size_t len = 0;
  for (int i = 0; i < 5; i++) {
    if (!have[i])
      continue;
    char secs[32];
    format_seconds(seconds[i], secs, sizeof secs);
    int w = snprintf(list + len, sizeof list - len, "%s%s %s", len ? ", " : "", _(counters[i].name), secs);
    if (w > 0 && (size_t)w < sizeof list - len)
      len += (size_t)w;
    gw_check_value(it, counters[i].value_name, seconds[i]);
  }
  gw_check_reason(it, _("Since the driver loaded, clocks were held down by: %s."), list);
  int hw = (have[0] && seconds[0] > 0) || (have[1] && seconds[1] > 0);
  /* SW thermal slowdown counts in milliseconds now and then on healthy GPUs;
   * a whole second is a pattern. */
  int sw_thermal = have[2] && seconds[2] >= 1.0;
  if (hw || sw_thermal) {
    gw_check_raise(it, GW_CHECK_WARN);
    if (hw)
      gw_check_reason(it, _("HW slowdowns happened: clocks were cut by half or more for that long."));
    if (sw_thermal)
      gw_check_reason(it, _("The GPU ran hot enough for the driver to slow it."));
    gw_check_fix(it, _("Check cooling and power delivery (cables, supply, the server's event log); these counters "
                       "only grow, so compare them before and after a run to see whether it happens now."));
  } else if (have[3] && seconds[3] > 0) {
    gw_check_reason(it, _("Time at the power cap is normal for a GPU that has been busy."));
  }
}

/* Per-lane GB/s each way by PCIe generation, after line encoding. */
static double pcie_lane_gbps(unsigned gen) {
  static const double per_lane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877};
  return gen < sizeof per_lane / sizeof per_lane[0] ? per_lane[gen] : 0;
}

static void check_pcie_link(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  int under_load;
  const struct gw_gpu_sample *s = gw_check_gpu_sample(gpu, &under_load);
  double gen = 0, width = 0, replay = 0;
  int have_gen = gw_check_metric(s, GW_M_pcie_gen, &gen), have_width = gw_check_metric(s, GW_M_pcie_width, &width);
  unsigned max_gen = gpu->info.pcie_gen_max, max_width = gpu->info.pcie_width_max;
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (!have_gen || !have_width || !max_gen || !max_width) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver does not report the link's generation and width with their maximums (an "
                          "SXM or C2C-attached GPU may have none to report)."));
    return;
  }
  gw_check_value(it, "pcie_gen", gen);
  gw_check_value(it, "pcie_width", width);
  gw_check_value(it, "pcie_gen_max", max_gen);
  gw_check_value(it, "pcie_width_max", max_width);
  double now_gbps = pcie_lane_gbps((unsigned)gen) * width, max_gbps = pcie_lane_gbps(max_gen) * max_width;
  int degraded = gen < max_gen || width < max_width;
  gw_check_reason(it, _("Gen %.0f x%.0f %s%s,"), gen, width, seen_when(s, under_load),
                  under_load ? _(" at its best") : "");
  if (!degraded)
    gw_check_reason(it, _("the GPU's maximum"));
  else
    gw_check_reason(it, _("below the GPU's gen %u x%u"), max_gen, max_width);
  if (degraded && now_gbps > 0 && max_gbps > 0)
    gw_check_reason(it, _("(about %.1f of %.1f GB/s each way)."), now_gbps, max_gbps);
  else if (max_gbps > 0)
    gw_check_reason(it, _("(about %.1f GB/s each way)."), max_gbps);
  else
    gw_check_reason(it, ".");
  if (degraded && under_load) {
    gw_check_raise(it, GW_CHECK_FAIL);
    gw_check_reason(it, _("The link stays degraded under work: every host-to-device copy is slower."));
    gw_check_fix(it,
                 _("Reseat the card or move it to a slot wired for x%u at gen %u; check risers and cables and "
                   "the BIOS PCIe speed setting; lspci -vv shows the link status against its capability."),
                 max_width, max_gen);
  } else if (degraded) {
    gw_check_raise(it, GW_CHECK_WARN);
    if (gpu_idle_now(s))
      gw_check_reason(it, _("Links train down to a slower generation while idle to save power, so this may be "
                            "harmless."));
    else
      gw_check_reason(it, _("Light work may leave a link trained down; only a full load tells."));
    gw_check_fix(it, _("Run gpuwhy check --load: a link that stays below gen %u x%u under work is a real fault."),
                 max_gen, max_width);
  }
  if (gw_check_metric(s, GW_M_pcie_replay, &replay) && replay > 0) {
    gw_check_value(it, "pcie_replay", replay);
    gw_check_reason(it, _("The replay counter is %.0f: the link has resent packets, a sign of signal trouble."),
                    replay);
  }
}

static void check_ecc(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  double sbe = 0, dbe = 0;
  int have_sbe = gw_check_gpu_metric(gpu, GW_M_ecc_sbe_volatile, &sbe, NULL);
  int have_dbe = gw_check_gpu_metric(gpu, GW_M_ecc_dbe_volatile, &dbe, NULL);
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (gpu->info.ecc_enabled == 0) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("ECC is off: memory errors go unnoticed and silently change data."));
    gw_check_fix(it,
                 _("On a data-center GPU turn it on with sudo nvidia-smi -i %u -e 1 and reset the GPU (it costs "
                   "a few percent of memory)."),
                 gpu->index);
    return;
  }
  if (!have_sbe && !have_dbe) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("This GPU reports no ECC error counts (no ECC memory, or not exposed)."));
    return;
  }
  gw_check_reason(it, _("ECC on;"));
  if (have_sbe) {
    gw_check_value(it, "ecc_corrected", sbe);
    gw_check_reason(it, _("%.0f corrected"), sbe);
  }
  if (have_dbe) {
    gw_check_value(it, "ecc_uncorrected", dbe);
    gw_check_reason(it, _("%s%.0f uncorrected"), have_sbe ? _("and ") : "", dbe);
  }
  gw_check_reason(it, _("errors since the driver loaded."));
  if (dbe > 0) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it, _("An uncorrected error means some work read wrong data; the driver marks the row for "
                          "remapping."));
    gw_check_fix(it,
                 _("Reset the GPU when it is free (sudo nvidia-smi -r -i %u) so the remap takes effect; if "
                   "uncorrected errors come back, the GPU needs service."),
                 gpu->index);
  } else if (sbe > 0) {
    gw_check_reason(it, _("Corrected errors are fixed on the fly; only a fast-growing count needs attention."));
  }
}

static void check_row_remap(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  double cor = 0, unc = 0, pending = 0, failure = 0;
  int have = gw_check_gpu_metric(gpu, GW_M_remapped_cor, &cor, NULL);
  have &= gw_check_gpu_metric(gpu, GW_M_remapped_unc, &unc, NULL);
  have &= gw_check_gpu_metric(gpu, GW_M_remapped_pending, &pending, NULL);
  have &= gw_check_gpu_metric(gpu, GW_M_remapped_failure, &failure, NULL);
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (!have) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("Not reported: GPUs before Ampere retire pages instead, and MIG hides it."));
    return;
  }
  gw_check_value(it, "remapped_corrected_rows", cor);
  gw_check_value(it, "remapped_uncorrected_rows", unc);
  gw_check_value(it, "remap_pending", pending);
  gw_check_value(it, "remap_failure", failure);
  gw_check_reason(it,
                  cor == 1 ? _("%.0f row remapped after corrected errors, %.0f after uncorrected ones;")
                           : _("%.0f rows remapped after corrected errors, %.0f after uncorrected ones;"),
                  cor, unc);
  if (failure > 0) {
    gw_check_raise(it, GW_CHECK_FAIL);
    gw_check_reason(it, _("a remap FAILED: the memory has more bad rows than spares."));
    gw_check_fix(it, _("Take GPU %u out of service and contact the vendor; results computed on it may be wrong."),
                 gpu->index);
  } else if (pending > 0) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it, _("a remap is pending and takes effect at the next GPU reset."));
    gw_check_fix(it, _("Reset the GPU when no job runs: sudo nvidia-smi -r -i %u (or reboot)."), gpu->index);
  } else {
    gw_check_reason(it, _("none pending, none failed."));
  }
}

static void check_persistence(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  int mode = gpu->info.persistence_mode;
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, mode == 1 ? GW_CHECK_PASS : GW_CHECK_NOTE);
  if (mode == 1) {
    gw_check_reason(it, _("On: the driver keeps the GPU initialised between processes."));
    return;
  }
  if (mode < 0) {
    gw_check_reason(it, _("The driver does not report persistence mode."));
    return;
  }
  gw_check_value(it, "persistence_mode", 0);
  gw_check_raise(it, GW_CHECK_WARN);
  gw_check_reason(it, _("Off: when no process holds the GPU, the driver tears its state down and sets it up again "
                        "at the next process start, which adds time to every launch (up to seconds with several "
                        "GPUs; each torchrun worker, each test run), and settings made with nvidia-smi can be lost "
                        "meanwhile."));
  gw_check_fix(it, _("Run the persistence daemon: sudo systemctl enable --now nvidia-persistenced (or sudo nvidia-smi "
                     "-pm 1, which lasts until reboot)."));
}

static void check_compute_mode(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  static const char *const names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
  int mode = gpu->info.compute_mode;
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (mode < 0 || mode > 3) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver does not report the compute mode%s."), mode > 3 ? _(" in a known form") : "");
    return;
  }
  gw_check_value(it, "compute_mode", mode);
  if (mode == 0) {
    gw_check_reason(it, _("Default: any number of processes may use the GPU."));
    return;
  }
  if (mode == 2) {
    gw_check_raise(it, GW_CHECK_FAIL);
    gw_check_reason(it, _("Prohibited: no process may start CUDA work on this GPU."));
  } else {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it,
                    _("%s: only one process may use the GPU; a second job, or a data-loader worker that "
                      "touches CUDA, fails with \"all CUDA-capable devices are busy or unavailable\"."),
                    names[mode]);
  }
  gw_check_fix(it, _("sudo nvidia-smi -i %u -c DEFAULT, unless the cluster sets this on purpose."), gpu->index);
}

static void check_mig(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  int mig = gpu->info.mig_enabled;
  if (mig < 0)
    return; /* a GPU without MIG: nothing to say */
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, mig ? GW_CHECK_NOTE : GW_CHECK_PASS);
  gw_check_value(it, "mig_enabled", mig);
  if (!mig) {
    gw_check_reason(it, _("Off: jobs get the whole GPU."));
    return;
  }
  gw_check_reason(it, _("On: the GPU is split into instances and a job sees only its slice; whole-GPU "
                        "utilization and per-process figures are not reported, so gpuwhy reads activity per "
                        "instance."));
}

/* Real uid and name of a process, from <root>/proc/<pid>/status: 0, -1 when
 * there is no such file, -2 when it has no usable Uid line. */
static int process_owner(const char *root, int pid, long *uid, char *name, size_t name_cap) {
  char path[64], text[4096];
  if (pid > 0)
    snprintf(path, sizeof path, "/proc/%d/status", pid);
  else
    snprintf(path, sizeof path, "/proc/self/status");
  if (gw_read_file_at(root, path, text, sizeof text, NULL) < 0)
    return -1;
  if (name && name_cap) {
    name[0] = '\0';
    const char *n = strncmp(text, "Name:", 5) == 0 ? text : strstr(text, "\nName:");
    if (n) {
      n += n[0] == '\n' ? 6 : 5;
      n += strspn(n, " \t");
      size_t len = strcspn(n, "\n");
      if (len >= name_cap)
        len = name_cap - 1;
      memcpy(name, n, len);
      name[len] = '\0';
    }
  }
  const char *u = strstr(text, "\nUid:");
  if (!u)
    return -2;
  u += 5;
  u += strspn(u, " \t");
  char digits[24];
  size_t len = strspn(u, "0123456789");
  if (gw_copy_token(digits, sizeof digits, u, len) != 0)
    return -2;
  int64_t v;
  if (gw_parse_i64(digits, &v) != 0)
    return -2;
  *uid = (long)v;
  return 0;
}

static void check_processes(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  struct gw_check_item *it = gw_check_add(ctx, def, gpu, GW_CHECK_PASS);
  if (gpu->nprocs < 0) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("The driver did not list the processes on this GPU."));
    return;
  }
  gw_check_value(it, "processes", gpu->nprocs);
  if (gpu->nprocs == 0) {
    gw_check_reason(it, _("No process is using the GPU."));
    return;
  }
  long my_uid;
  /* Who "I" am comes from the same tree as the processes, so fixture trees
   * carry their own answer. */
  if (process_owner(ctx->root, 0, &my_uid, NULL, 0) != 0)
    my_uid = (long)getuid();
  int others = 0, hidden = 0, mine = 0;
  for (int i = 0; i < gpu->nprocs; i++) {
    const struct gw_gpu_proc *p = &gpu->procs[i];
    long uid;
    char name[64];
    char mem[48] = "";
    if (p->used_mem_bytes >= 0)
      snprintf(mem, sizeof mem, ", %.1f GiB", (double)p->used_mem_bytes / GIB);
    int owner = process_owner(ctx->root, p->pid, &uid, name, sizeof name);
    if (owner == -1) {
      hidden++;
      gw_check_reason(it, _("pid %d (not visible here%s);"), p->pid, mem);
    } else if (owner == -2) {
      hidden++;
      gw_check_reason(it, _("pid %d (%s, owner unknown: no Uid in its status%s);"), p->pid, name[0] ? name : "?", mem);
    } else if (uid != my_uid) {
      others++;
      gw_check_reason(it, _("pid %d (%s, uid %ld, another user%s);"), p->pid, name[0] ? name : "?", uid, mem);
    } else {
      mine++;
      gw_check_reason(it, _("pid %d (%s, yours%s);"), p->pid, name[0] ? name : "?", mem);
    }
  }
  gw_check_value(it, "other_user_processes", others);
  gw_check_value(it, "hidden_processes", hidden);
  /* The list ends with ';': make it a sentence. */
  size_t len = strlen(it->reason);
  if (len > 0 && it->reason[len - 1] == ';')
    it->reason[len - 1] = '.';
  else if (len >= 3 && strcmp(it->reason + len - 3, "\xEF\xBC\x9B") == 0) /* a translation's full-width ';' */
    memcpy(it->reason + len - 3, "\xE3\x80\x82", 3);                      /* becomes its full stop */
  gw_check_reason(it,
                  gpu->nprocs == 1 ? _("%d process on the GPU: they share its SMs and memory with your job.")
                                   : _("%d processes on the GPU: they share its SMs and memory with your job."),
                  gpu->nprocs);
  if (others || hidden) {
    gw_check_raise(it, GW_CHECK_WARN);
    if (others)
      gw_check_fix(it, _("Another user's job shares this GPU: agree on who uses it, or ask the scheduler for an "
                         "exclusive GPU."));
    if (hidden)
      gw_check_fix(it, _("Processes not visible here run in another container or PID namespace; nvidia-smi on the "
                         "host names them."));
  } else if (mine) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_fix(it, _("If these are leftovers (a notebook kernel, a stopped run), end them to free the GPU."));
  }
}

const struct check_def gw_check_gpu_rows[] = {
    {"gpu", "clocks", N_("P-state and clocks"), CHECK_PER_GPU, check_clocks},
    {"gpu", "power_limit", N_("power limit"), CHECK_PER_GPU, check_power_limit},
    {"gpu", "temperature", N_("temperature"), CHECK_PER_GPU, check_temperature},
    {"gpu", "clock_reasons", N_("clock event reasons"), CHECK_PER_GPU, check_clock_reasons},
    {"gpu", "throttle_time", N_("throttle time"), CHECK_PER_GPU, check_throttle_time},
    {"gpu", "pcie_link", N_("PCIe link"), CHECK_PER_GPU, check_pcie_link},
    {"gpu", "ecc", N_("ECC errors"), CHECK_PER_GPU, check_ecc},
    {"gpu", "row_remap", N_("row remapping"), CHECK_PER_GPU, check_row_remap},
    {"gpu", "persistence", N_("persistence mode"), CHECK_PER_GPU, check_persistence},
    {"gpu", "compute_mode", N_("compute mode"), CHECK_PER_GPU, check_compute_mode},
    {"gpu", "mig", N_("MIG"), CHECK_PER_GPU, check_mig},
    {"gpu", "processes", N_("processes on the GPU"), CHECK_PER_GPU, check_processes},
};
const size_t gw_check_gpu_nrows = sizeof gw_check_gpu_rows / sizeof gw_check_gpu_rows[0];
