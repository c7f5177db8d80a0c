/* /proc/stat text into CPU tick counters (gw_parse_proc_stat). */
#include "fuzz_util.h"
#include "sources/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstring(data, size);
  struct gw_cpu_ticks total, small[4];
  struct gw_err err = {{0}};
  int n = gw_parse_proc_stat(text, &total, small, 4, &err);
  FUZZ_CHECK(n >= -1);
  FUZZ_CHECK(fuzz_terminated(err.msg, sizeof err.msg));
  if (n < 0)
    FUZZ_CHECK(err.msg[0] != '\0'); /* a failure always says why */
  if (n > 4) {
    /* The caller grows its array to the count returned and parses again. */
    struct gw_cpu_ticks *cores = calloc((size_t)n, sizeof *cores);
    struct gw_cpu_ticks total2;
    int again = gw_parse_proc_stat(text, &total2, cores, n, &err);
    FUZZ_CHECK(again == n);
    FUZZ_CHECK(memcmp(&total, &total2, sizeof total) == 0);
    FUZZ_CHECK(memcmp(cores, small, sizeof small) == 0);
    free(cores);
  }
  /* Without a core array only the total is wanted. */
  FUZZ_CHECK(gw_parse_proc_stat(text, &total, NULL, 0, NULL) == n);
  free(text);
  return 0;
}
