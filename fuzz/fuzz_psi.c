/* /proc/pressure/{cpu,memory,io} (gw_parse_psi). */
#include "fuzz_util.h"
#include "sources/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstring(data, size);
  uint64_t some = 0, full = 0;
  struct gw_err err = {{0}};
  int n = gw_parse_psi(text, &some, &full, &err);
  FUZZ_CHECK(n == -1 || n == 1 || n == 2);
  FUZZ_CHECK(fuzz_terminated(err.msg, sizeof err.msg));
  if (n < 0)
    FUZZ_CHECK(err.msg[0] != '\0');
  free(text);
  return 0;
}
