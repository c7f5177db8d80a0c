#include "activity.h"

/* The names in JSON and docs; an out-of-range value reads as the table's "other"/"unknown". */
static const char *const STATE[] = {"unknown", "running", "sleeping", "disk", "stopped", "other"};
static const char *const ROLE[] = {"other", "main", "autograd", "loader_worker", "pin_memory", "nccl", "helper"};
static const char *const WAIT[] = {"none", "futex", "poll", "net", "pipe", "disk", "sleep", "gpu", "other"};
static const char *const PYACT[] = {
    "other",   "data_wait", "data_inline",      "h2d",        "sync", "checkpoint", "eval", "logging",
    "compile", "optimizer", "forward_backward", "collective", "idle"};

#define NAME_OF(table, i, fallback)                                                                                    \
  ((i) >= 0 && (unsigned)(i) < sizeof(table) / sizeof(table)[0] ? (table)[i] : (fallback))

const char *gw_thread_state_name(int s) {
  return NAME_OF(STATE, s, "unknown");
}
const char *gw_thread_role_name(int r) {
  return NAME_OF(ROLE, r, "other");
}
const char *gw_wait_kind_name(int w) {
  return NAME_OF(WAIT, w, "other");
}
const char *gw_py_activity_name(int a) {
  return NAME_OF(PYACT, a, "other");
}
