/* A kernel message as an NVRM / Xid line (gw_parse_xid_line). */
#include "fuzz_util.h"
#include "sources/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *msg = fuzz_cstring(data, size);
  struct gw_xid x;
  int kind = gw_parse_xid_line(msg, &x);
  FUZZ_CHECK(kind >= -1 && kind <= 1);
  FUZZ_CHECK(x.detail != NULL);
  if (kind >= 0) {
    size_t len = strlen(msg);
    FUZZ_CHECK(x.detail >= msg && x.detail <= msg + len);
  }
  if (kind == 1) {
    FUZZ_CHECK(x.xid >= 0 && x.pid >= 0);
    FUZZ_CHECK(fuzz_terminated(x.pci, sizeof x.pci) && fuzz_terminated(x.name, sizeof x.name));
  } else {
    FUZZ_CHECK(x.xid == -1);
  }
  free(msg);
  return 0;
}
