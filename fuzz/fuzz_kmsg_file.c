/* The kernel-log source reading a file of records (the form tests and
 * saved logs take): line assembly, continuation lines, over-long records,
 * and the events made from NVRM and Xid lines (gw_kmsg_open + gw_kmsg_poll). */
#include <sys/stat.h>

#include "fuzz_util.h"
#include "sources/kmsg.h"

static void check_event(void *ctx, const struct gw_event *ev) {
  int *count = ctx;
  (*count)++;
  FUZZ_CHECK(ev->kind != NULL);
  FUZZ_CHECK(fuzz_terminated(ev->message, sizeof ev->message));
  FUZZ_CHECK(strcmp(ev->kind, "xid") == 0 || strcmp(ev->kind, "nvrm") == 0 || strcmp(ev->kind, "note") == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char root[512], file[600];
  if (!root[0]) {
    fuzz_path(root, sizeof root, "kmsg-root");
    char dev[560];
    snprintf(dev, sizeof dev, "%s/dev", root);
    mkdir(root, 0700);
    mkdir(dev, 0700);
    snprintf(file, sizeof file, "%s/kmsg", dev);
  }
  fuzz_write_file(file, data, size);
  struct gw_kmsg *k = NULL;
  struct gw_err err = {{0}};
  if (gw_kmsg_open(&k, root, 1, &err) != GW_OK) {
    fprintf(stderr, "cannot open %s: %s\n", file, err.msg);
    abort();
  }
  int seen = 0;
  struct gw_event_sink sink = {check_event, &seen};
  int n = gw_kmsg_poll(k, &sink);
  FUZZ_CHECK(n == seen);
  /* Nothing new: a second poll finds nothing. */
  seen = 0;
  FUZZ_CHECK(gw_kmsg_poll(k, &sink) == 0 && seen == 0);
  gw_kmsg_close(k);
  return 0;
}
