/* NVML's clock event reason bits (nvmlClocksEventReason* in nvml.h): why the
 * driver holds the clocks below their maximum. One table names each bit for
 * every place that shows them: the recording's events (nvml.c, English),
 * check's and watch's text (translated) and the Prometheus label. */
#ifndef GW_SOURCES_CLOCK_REASONS_H
#define GW_SOURCES_CLOCK_REASONS_H

#include <stddef.h>
#include <stdint.h>

enum {
  GW_CLOCK_REASON_IDLE = 0x1,
  GW_CLOCK_REASON_APP_CLOCKS = 0x2,
  GW_CLOCK_REASON_SW_POWER_CAP = 0x4,
  GW_CLOCK_REASON_HW_SLOWDOWN = 0x8,
  GW_CLOCK_REASON_SYNC_BOOST = 0x10,
  GW_CLOCK_REASON_SW_THERMAL = 0x20,
  GW_CLOCK_REASON_HW_THERMAL = 0x40,
  GW_CLOCK_REASON_HW_POWER_BRAKE = 0x80,
  GW_CLOCK_REASON_DISPLAY_CLOCK = 0x100,
};
/* The hardware's own slowdowns, as opposed to settings and software caps. */
#define GW_CLOCK_REASONS_HW (GW_CLOCK_REASON_HW_SLOWDOWN | GW_CLOCK_REASON_HW_THERMAL | GW_CLOCK_REASON_HW_POWER_BRAKE)

struct gw_clock_reason_name {
  uint64_t bit;
  const char *name;       /* N_(): "HW thermal slowdown" */
  const char *short_name; /* N_(): "HW thermal", for watch's narrow line */
  const char *label;      /* the Prometheus label value: "hw_thermal" */
};
/* Every known bit, lowest first. */
extern const struct gw_clock_reason_name gw_clock_reason_names[];
extern const size_t gw_clock_reason_nnames;

/* The reasons set in mask, named and comma-separated ("SW power cap, HW
 * slowdown"), then "other bits 0x..." for the bits the table does not know:
 * in the language of the messages when translate is non-zero, in English
 * (the recording's events) otherwise. "" for 0; a name that does not fit in
 * cap ends the list there. */
void gw_clock_reasons_describe(uint64_t mask, int translate, char *buf, size_t cap);

#endif
