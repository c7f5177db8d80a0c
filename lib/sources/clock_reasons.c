#include "sources/clock_reasons.h"

#include <stdio.h>

#include "core/i18n.h"

const struct gw_clock_reason_name gw_clock_reason_names[] = {
    {GW_CLOCK_REASON_IDLE, N_("GPU idle"), N_("idle"), "gpu_idle"},
    {GW_CLOCK_REASON_APP_CLOCKS, N_("applications clocks setting"), N_("app clocks"), "applications_clocks"},
    {GW_CLOCK_REASON_SW_POWER_CAP, N_("SW power cap"), N_("SW power cap"), "sw_power_cap"},
    {GW_CLOCK_REASON_HW_SLOWDOWN, N_("HW slowdown"), N_("HW slowdown"), "hw_slowdown"},
    {GW_CLOCK_REASON_SYNC_BOOST, N_("sync boost"), N_("sync boost"), "sync_boost"},
    {GW_CLOCK_REASON_SW_THERMAL, N_("SW thermal slowdown"), N_("SW thermal"), "sw_thermal"},
    {GW_CLOCK_REASON_HW_THERMAL, N_("HW thermal slowdown"), N_("HW thermal"), "hw_thermal"},
    {GW_CLOCK_REASON_HW_POWER_BRAKE, N_("HW power brake"), N_("power brake"), "hw_power_brake"},
    {GW_CLOCK_REASON_DISPLAY_CLOCK, N_("display clock setting"), N_("display clocks"), "display_clocks"},
};
const size_t gw_clock_reason_nnames = sizeof gw_clock_reason_names / sizeof gw_clock_reason_names[0];

void gw_clock_reasons_describe(uint64_t mask, int translate, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  uint64_t known = 0;
  for (size_t i = 0; i < gw_clock_reason_nnames; i++) {
    const struct gw_clock_reason_name *r = &gw_clock_reason_names[i];
    known |= r->bit;
    if (!(mask & r->bit))
      continue;
    int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", translate ? _(r->name) : r->name);
    if (w < 0 || (size_t)w >= cap - len)
      return;
    len += (size_t)w;
  }
  if (mask & ~known)
    snprintf(buf + len, cap - len, translate ? _("%sother bits 0x%llx") : "%sother bits 0x%llx", len ? ", " : "",
             (unsigned long long)(mask & ~known));
}
