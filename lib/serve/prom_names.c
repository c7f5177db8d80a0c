#include "serve/prom_names.h"

#include "core/util.h"

#include <stdio.h>
#include <string.h>

/* Unit suffixes of the .def's column names and their Prometheus base units. */
static const struct {
  const char *suffix, *base, *unit_text;
  double scale;
} UNITS[] = {
    {"_pct", "_ratio", "as a ratio from 0 to 1", 0.01},
    {"_mw", "_watts", "in watts", 1e-3},
    {"_mhz", "_hertz", "in hertz", 1e6},
    {"_bps", "_bytes_per_second", "in bytes per second", 1},
    {"_bytes", "_bytes", "in bytes", 1},
    {"_mj", "_joules", "in joules", 1e-3},
    {"_ns", "_seconds", "in seconds", 1e-9},
    {"_c", "_celsius", "in degrees Celsius", 1},
};

/* Readings that only grow while the driver is loaded. */
static const char *const COUNTER_PREFIXES[] = {"energy_",     "viol_",        "ecc_",
                                               "pcie_replay", "remapped_cor", "remapped_unc"};

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

long gw_prom_help_escape(char *buf, size_t cap, const char *s) {
  size_t len = 0;
  if (cap == 0)
    return -1;
  for (; s && *s; s++) {
    const char *rep = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : NULL;
    size_t n = rep ? 2 : 1;
    if (len + n + 1 > cap) {
      buf[len] = '\0';
      return -1;
    }
    if (rep)
      memcpy(buf + len, rep, 2);
    else
      buf[len] = *s;
    len += n;
  }
  buf[len] = '\0';
  return (long)len;
}

int gw_prom_gpu_metric(int m, struct gw_prom_metric *out) {
  if (m < 0 || m >= GW_GPU_NMETRICS)
    return -1;
  const struct gw_metric_info *info = &gw_gpu_metric_info[m];
  char stem[96];
  const char *base = "", *unit_text = NULL;
  double scale = 1;
  gw_strlcpy(stem, info->id, sizeof stem);
  for (size_t u = 0; u < sizeof UNITS / sizeof UNITS[0]; u++)
    if (ends_with(info->id, UNITS[u].suffix)) {
      stem[strlen(info->id) - strlen(UNITS[u].suffix)] = '\0';
      base = UNITS[u].base;
      unit_text = UNITS[u].unit_text;
      scale = UNITS[u].scale;
      break;
    }
  int counter = 0;
  for (size_t c = 0; c < sizeof COUNTER_PREFIXES / sizeof COUNTER_PREFIXES[0]; c++)
    counter |= strncmp(info->id, COUNTER_PREFIXES[c], strlen(COUNTER_PREFIXES[c])) == 0;
  /* Names are built from the metric table's short ids: a cut name would be
   * a bug in the table, caught by the exporter tests' promtool check. */
  if (snprintf(out->name, sizeof out->name, "gpuwhy_gpu_%s%s%s", stem, base, counter ? "_total" : "") >=
      (int)sizeof out->name)
    return -1;
  out->type = counter ? "counter" : "gauge";
  out->scale = scale;
  char help[480];
  if (snprintf(help, sizeof help, "%s%s%s", info->help, unit_text ? ", " : "", unit_text ? unit_text : "") >=
      (int)sizeof help)
    help[sizeof help - 1] = '\0'; /* a shortened help line is still a help line */
  if (gw_prom_help_escape(out->help, sizeof out->help, help) < 0)
    out->help[sizeof out->help - 1] = '\0';
  return 0;
}
