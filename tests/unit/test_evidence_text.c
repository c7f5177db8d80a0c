/* The message table of the evidence ids (lib/render/evidence_text.c): each
 * row's conversions take exactly its named values, ids are unique, and a
 * sentence made from values reads as the rule's printf made it before. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "message_rows_check.h"

#include "analysis/diagnosis.h"
#include "render/evidence_text.h"
#include "support_test_main.h"

static void rows_match_their_messages(void **state) {
  (void)state;
  check_message_rows(gw_evidence_messages, 60, gw_evidence_message_find);
}

static struct gw_finding g_f;

static const struct gw_evidence *last(void) {
  return &g_f.evidence[g_f.nevidence - 1];
}

static void sentences_from_values(void **state) {
  (void)state;
  memset(&g_f, 0, sizeof g_f);
  char line[GW_TEXT];
  /* a fraction shows as a percentage, a percentage as it is */
  gw_evidence(&g_f, "input_wait_share_sm", 0, 1, 2, GW_NUM("share", GW_UNIT_FRACTION, 0.7049),
              GW_NUM("sm_active_median", GW_UNIT_PCT, 12.34));
  gw_evidence_text(last(), 0, line, sizeof line);
  assert_string_equal(line, "GPU idle and waiting for input 70% of active time; SM activity median 12.3%");
  assert_int_equal(last()->gpu, 0);
  assert_float_equal(gw_evidence_value(last(), "share")->number, 0.7049, 0);
  assert_string_equal(gw_unit_name(gw_evidence_value(last(), "share")->unit), "fraction");
  /* the evidence's GPU fills "GPU %d"; %d takes a count, %s a label */
  gw_evidence(&g_f, "xid_errors", 3, 0, 0, GW_NUM("xid_errors", GW_UNIT_COUNT, 2));
  gw_evidence_text(last(), 0, line, sizeof line);
  assert_string_equal(line, "GPU 3: 2 Xid error(s) in the kernel log");
  gw_evidence(&g_f, "straggler_rank", 1, 0, 0, GW_TEXT_VALUE("label", "host-b GPU 1"), GW_NUM("rank", GW_UNIT_RANK, 5));
  gw_evidence_text(last(), 0, line, sizeof line);
  assert_string_equal(line,
                      "host-b GPU 1 (NCCL rank 5) is the straggler: the other ranks wait for it in every collective");
  /* %zu and %lld take counts too */
  gw_evidence(&g_f, "data_wait_share", -1, 0, 0, GW_NUM("share", GW_UNIT_FRACTION, 0.25),
              GW_NUM("steps", GW_UNIT_COUNT, 40));
  gw_evidence_text(last(), 0, line, sizeof line);
  assert_string_equal(line,
                      "the training loop waited for the DataLoader 25% of its step time (40 steps measured inside the "
                      "program)");
  /* cut like snprintf */
  char small[8];
  gw_evidence_text(last(), 0, small, sizeof small);
  assert_string_equal(small, "the tra");
}

static void unknown_id_still_says_what_it_saw(void **state) {
  (void)state;
  memset(&g_f, 0, sizeof g_f);
  char line[GW_TEXT];
  gw_evidence(&g_f, "no_such_id", -1, 0, 0, GW_NUM("share", GW_UNIT_FRACTION, 0.5), GW_TEXT_VALUE("who", "GPU 2"));
  gw_evidence_text(last(), 1, line, sizeof line);
  assert_string_equal(line, "no_such_id: share=0.5 fraction, who=GPU 2");
  /* a value the message names but the rule left out: a mark, not a crash */
  gw_finding_add_evidence(&g_f, "input_wait_share", 0, 0, 0, 0, NULL);
  gw_evidence_text(last(), 0, line, sizeof line);
  assert_string_equal(line, "GPU idle and waiting for input nan% of active time");
  /* past GW_MAX_EVIDENCE nothing is added */
  for (int i = 0; i < GW_MAX_EVIDENCE + 2; i++)
    gw_finding_add_evidence(&g_f, "on_battery", -1, 0, 0, 0, NULL);
  assert_int_equal(g_f.nevidence, GW_MAX_EVIDENCE);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(rows_match_their_messages),
    cmocka_unit_test(sentences_from_values),
    cmocka_unit_test(unknown_id_still_says_what_it_saw),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
