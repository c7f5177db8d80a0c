/* An NCCL_DEBUG=INFO log, line by line: gw_nccl_parse_line on each line,
 * then the lines folded into a summary (gw_nccl_summary_add / _finish). */
#include "analysis/nccl_transport.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstring(data, size);
  struct gw_nccl_summary *s = calloc(1, sizeof *s);
  gw_nccl_summary_init(s);
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    struct gw_nccl_line l;
    enum gw_nccl_line_kind kind = gw_nccl_parse_line(line, &l);
    FUZZ_CHECK(kind >= GW_NCCL_LINE_OTHER && kind <= GW_NCCL_LINE_WARN);
    FUZZ_CHECK((unsigned)l.transport < GW_NCCL_NTRANSPORTS);
    FUZZ_CHECK(fuzz_terminated(l.host, sizeof l.host) && fuzz_terminated(l.via, sizeof l.via));
    FUZZ_CHECK(fuzz_terminated(l.text, sizeof l.text) && fuzz_terminated(l.env_value, sizeof l.env_value));
    FUZZ_CHECK(l.channel >= -1 && l.rank >= -1 && l.nranks >= -1 && l.cuda_dev >= -1 && l.cuda_dev <= 1023);
    gw_nccl_summary_add(s, 0, -1, line);
  }
  gw_nccl_summary_finish(s);
  FUZZ_CHECK(s->nranks_seen >= 0 && s->nranks_seen <= GW_NCCL_MAX_RANKS);
  for (int i = 0; i < s->nranks_seen; i++) {
    char tr[64];
    gw_nccl_rank_transports(&s->ranks[i], tr, sizeof tr);
    FUZZ_CHECK(fuzz_terminated(tr, sizeof tr));
  }
  free(s);
  free(text);
  return 0;
}
