/* One raw /dev/kmsg record (gw_kmsg_parse_record), then its message as a
 * driver line (gw_parse_xid_line), the way the recorder uses them. */
#include "fuzz_util.h"
#include "sources/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The parser writes a NUL at raw[len]: exactly len + 1 bytes. */
  char *raw = malloc(size + 1);
  if (!raw)
    abort();
  memcpy(raw, data, size);
  struct gw_kmsg_record rec;
  struct gw_err err = {{0}};
  int rc = gw_kmsg_parse_record(raw, size, &rec, &err);
  FUZZ_CHECK(rc == 0 || rc == -1);
  FUZZ_CHECK(fuzz_terminated(err.msg, sizeof err.msg));
  if (rc == 0) {
    FUZZ_CHECK(rec.priority >= 0 && rec.priority <= 7);
    FUZZ_CHECK(rec.message > raw && rec.message <= raw + size);
    FUZZ_CHECK(fuzz_terminated(rec.message, (size_t)(raw + size + 1 - rec.message)));
    struct gw_xid x;
    int kind = gw_parse_xid_line(rec.message, &x);
    FUZZ_CHECK(kind >= -1 && kind <= 1);
    if (kind == 1) {
      FUZZ_CHECK(x.xid >= 0);
      FUZZ_CHECK(fuzz_terminated(x.pci, sizeof x.pci) && fuzz_terminated(x.name, sizeof x.name));
      FUZZ_CHECK(x.detail >= rec.message && x.detail <= raw + size);
      (void)gw_xid_lookup(x.xid);
    }
  } else {
    FUZZ_CHECK(err.msg[0] != '\0');
  }
  free(raw);
  return 0;
}
