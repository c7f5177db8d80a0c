/* Names of the activity enums (activity.h), as JSON and the docs spell them. */
#include "activity.h"

#include <stddef.h>

static const char *name_in(const char *const *names, size_t n, int v, const char *fallback) {
  return v >= 0 && (size_t)v < n ? names[v] : fallback;
}

#define NAME_IN(table, v, fallback) name_in(table, sizeof table / sizeof table[0], v, fallback)

const char *gw_thread_state_name(int v) {
  static const char *const names[] = {"unknown", "running", "sleeping", "disk", "stopped", "other"};
  return NAME_IN(names, v, "unknown");
}

const char *gw_thread_role_name(int v) {
  static const char *const names[] = {"other", "main", "autograd", "loader_worker", "pin_memory", "nccl", "helper"};
  return NAME_IN(names, v, "other");
}

const char *gw_wait_kind_name(int v) {
  static const char *const names[] = {"none", "futex", "poll", "net", "pipe", "disk", "sleep", "gpu", "other"};
  return NAME_IN(names, v, "other");
}

const char *gw_py_activity_name(int v) {
  static const char *const names[GW_PYACT_COUNT] = {
      "other",   "data_wait", "data_inline",      "h2d",        "sync", "checkpoint", "eval", "logging",
      "compile", "optimizer", "forward_backward", "collective", "idle"};
  return NAME_IN(names, v, "other");
}
