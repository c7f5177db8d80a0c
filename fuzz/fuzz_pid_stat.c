/* /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat (gw_parse_pid_stat). */
#include "fuzz_util.h"
#include "sources/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstring(data, size);
  struct gw_pid_stat st;
  struct gw_err err = {{0}};
  int rc = gw_parse_pid_stat(text, &st, &err);
  FUZZ_CHECK(rc == 0 || rc == -1);
  FUZZ_CHECK(fuzz_terminated(err.msg, sizeof err.msg));
  if (rc == 0) {
    FUZZ_CHECK(st.pid > 0);
    FUZZ_CHECK(st.ppid >= 0);
    FUZZ_CHECK(st.num_threads >= 0);
    FUZZ_CHECK(fuzz_terminated(st.comm, sizeof st.comm));
  } else {
    FUZZ_CHECK(err.msg[0] != '\0');
  }
  free(text);
  return 0;
}
