/* Names of the activity enums (activity.h), for JSON and the docs. */
#include "activity.h"

static const char *name_in(const char *const *names, int n, int v) {
  return v >= 0 && v < n ? names[v] : "unknown";
}

const char *gw_thread_state_name(int v) {
  static const char *const names[] = {"unknown", "running", "sleeping", "disk", "stopped", "other"};
  return name_in(names, (int)(sizeof names / sizeof *names), v);
}

const char *gw_thread_role_name(int v) {
  static const char *const names[] = {"other", "main", "autograd", "loader_worker", "pin_memory", "nccl", "helper"};
  return name_in(names, (int)(sizeof names / sizeof *names), v);
}

const char *gw_wait_kind_name(int v) {
  static const char *const names[] = {"none", "futex", "poll", "net", "pipe", "disk", "sleep", "gpu", "other"};
  return name_in(names, (int)(sizeof names / sizeof *names), v);
}

const char *gw_py_activity_name(int v) {
  static const char *const names[] = {
      "other",   "data_wait", "data_inline",      "h2d",        "sync", "checkpoint", "eval", "logging",
      "compile", "optimizer", "forward_backward", "collective", "idle"};
  return name_in(names, GW_PYACT_COUNT, v);
}
