/* The words of the ids the analysis names (lib/render/label_text.c): every
 * ledger row, variant title, NCCL advice and idle cause has its words, and a
 * phrase id a rule hands over (an idle cause's or one of the phrase table)
 * is worded; an id without words passes through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/ledger.h"
#include "render/label_text.h"
#include "support_test_main.h"

static void every_row_has_a_title(void **state) {
  (void)state;
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    const char *id = gw_ledger_row_id((enum gw_ledger_row)r);
    const char *title = gw_row_title(id);
    if (strcmp(title, id) == 0)
      fail_msg("row %s has no title", id);
  }
  assert_string_equal(gw_row_title("idle_input"), "idle: input (host preparing data)");
  assert_string_equal(gw_row_title("productive_sm_blind"), "busy (kernel resident, SM fill not measured)");
  assert_string_equal(gw_row_title("idle_other_claimed"), "idle: other (claimed by a finding, indirect signals)");
  /* an id without a title shows as it is, never empty */
  assert_string_equal(gw_row_title("no_such_row"), "no_such_row");
}

static void every_advice_has_words(void **state) {
  (void)state;
  for (int a = 0; a < GW_NCCL_NADVICE; a++)
    if (!gw_nccl_advice_text((enum gw_nccl_advice)a)[0])
      fail_msg("advice %s has no words", gw_nccl_advice_id((enum gw_nccl_advice)a));
  assert_string_equal(gw_nccl_advice_text(GW_NCCL_ADV_SHM_DISABLED),
                      "NCCL_SHM_DISABLE is set: without shared memory, GPUs that cannot use P2P fall back to sockets. "
                      "Unset it.");
  assert_string_equal(gw_nccl_advice_text(GW_NCCL_NADVICE), "");
  /* JSON's words: the untranslated message itself, whatever the locale */
  assert_string_equal(gw_nccl_advice_english(GW_NCCL_ADV_SHM_DISABLED),
                      "NCCL_SHM_DISABLE is set: without shared memory, GPUs that cannot use P2P fall back to sockets. "
                      "Unset it.");
  assert_string_equal(gw_nccl_advice_english(GW_NCCL_NADVICE), "");
  assert_string_equal(gw_straggler_cause_text(GW_STRAGGLER_CLOCKS), "lower SM clocks for the same work");
}

static void phrases_of_idle_causes(void **state) {
  (void)state;
  for (int c = 0; c < GW_IDLE_NCAUSES; c++) {
    const char *id = gw_idle_cause_phrase(c);
    /* passed through would mean no row; "logging" alone reads the same as its id */
    if (strcmp(gw_phrase_msgid(id), id) == 0 && c != GW_PYACT_LOGGING)
      fail_msg("idle cause %s has no words", id);
    assert_string_equal(gw_idle_cause_text(c), gw_phrase_msgid(id));
  }
  assert_string_equal(gw_phrase_msgid(gw_idle_cause_phrase(GW_PYACT_DATA_WAIT)), "waiting for the next batch");
  assert_string_equal(gw_idle_cause_text(-5), "not sampled");
  /* a phrase id of the phrase table (multi_gpu_sync's nccl_slow_path) is worded */
  assert_string_equal(gw_phrase_msgid("p2p_unavailable"), "P2P disabled or unavailable");
  /* a phrase without a row passes through as it is */
  assert_string_equal(gw_phrase_msgid("no_such_phrase"), "no_such_phrase");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_row_has_a_title),
    cmocka_unit_test(every_advice_has_words),
    cmocka_unit_test(phrases_of_idle_causes),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
