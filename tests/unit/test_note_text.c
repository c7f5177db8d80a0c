/* The message table of the diagnosis's notes, interpretation lines and
 * experiments (lib/render/note_text.c): each row's conversions take exactly
 * its named values, ids are unique, clauses fill in, and a long sentence is
 * cut at a character's edge. */
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
#include "core/json_write.h"
#include "render/note_text.h"
#include "support_test_main.h"

static void rows_match_their_messages(void **state) {
  (void)state;
  check_message_rows(gw_note_messages, 40, gw_note_message_find);
  assert_null(gw_note_message_find("no_such_note"));
}

static struct gw_diagnosis g_dx;

static const struct gw_evidence *last(void) {
  return &g_dx.notes[g_dx.nnotes - 1];
}

/* The sentence of the note added last. */
static const char *last_text(void) {
  static char line[GW_TEXT];
  gw_note_text(last(), 0, line, sizeof line);
  return line;
}

/* The sentence of a note on a process outside the job that shared GPU 0
 * (half the samples, 1.25 GiB, 30% of SM time), worded by its two clauses. */
static const char *shared_note_text(long long pid, const char *memory_clause, const char *sm_clause) {
  gw_diagnosis_note(&g_dx, "shared_with_process_unnamed", 0, GW_NUM("pid", GW_UNIT_COUNT, pid),
                    GW_NUM("sample_share", GW_UNIT_FRACTION, 0.5), GW_CLAUSE("memory_clause", memory_clause),
                    GW_CLAUSE("sm_clause", sm_clause), GW_NUM("memory", GW_UNIT_GIB, 1.25),
                    GW_NUM("sm_share", GW_UNIT_PCT, 30));
  return last_text();
}

static void sentences_from_values(void **state) {
  (void)state;
  memset(&g_dx, 0, sizeof g_dx);
  char line[GW_TEXT];
  /* the note's GPU fills "GPU %d"; seconds as %.1f */
  gw_diagnosis_note(&g_dx, "startup_and_tail", 2, GW_NUM("head", GW_UNIT_S, 12.34), GW_NUM("tail", GW_UNIT_S, 0));
  assert_string_equal(last_text(),
                      "GPU 2: the first 12.3 s, before the GPU first worked or the training loop's first step "
                      "ended (imports, model build, compilation, warm-up), and 0.0 s after the last work are "
                      "counted as startup, warm-up and tail, not blamed on a class.");
  /* %lld takes the pid; each clause is a row worded with the same values, or nothing */
  assert_string_equal(shared_note_text(4242, "shared_process_memory", ""),
                      "GPU 0 was shared with process 4242, which is not part of the recorded job (seen in 50% of "
                      "the GPU's process samples, 1.2 GiB of device memory): its kernels take SM time from the "
                      "job; its name is not recorded (ps -p 4242).");
  /* a clause naming no row says so rather than vanishing */
  assert_non_null(strstr(shared_note_text(7, "no_such_clause", "shared_process_sm"),
                         "samples?, 30% of SM time by the driver's count)"));
  /* a text value as it is; no values: the message alone */
  gw_diagnosis_note(&g_dx, "no_gpu_data", -1, GW_TEXT_VALUE("reason", "libnvidia-ml.so.1 not found"));
  assert_string_equal(last_text(), "No GPU data: libnvidia-ml.so.1 not found");
  gw_note_id_text("experiment_batch_sweep", 0, line, sizeof line);
  assert_string_equal(line, "throughput that rises with the batch means the work per kernel is too small");
  /* past GW_MAX_NOTES nothing is added */
  for (int i = 0; i < GW_MAX_NOTES + 2; i++)
    gw_diagnosis_add_note(&g_dx, "no_host_samples", -1, 0, NULL);
  assert_int_equal(g_dx.nnotes, GW_MAX_NOTES);
}

/* A sentence longer than its buffer is cut at a character's edge: Chinese
 * text (3 bytes a character) never leaves half a character at the end, and
 * nothing follows the cut. */
static void long_note_is_cut_at_a_character(void **state) {
  (void)state;
  char text[GW_EVIDENCE_VALUE_TEXT];
  size_t len = 0;
  while (len + 4 < sizeof text) { /* "x" then U+4E2D, so that a cut can fall anywhere */
    memcpy(text + len, len % 4 ? "\xe4\xb8\xad" : "x", len % 4 ? 3 : 1);
    len += len % 4 ? 3 : 1;
  }
  text[len] = '\0';
  struct gw_diagnosis *dx = calloc(1, sizeof *dx);
  assert_non_null(dx);
  gw_diagnosis_note(dx, "no_gpu_data", -1, GW_TEXT_VALUE("reason", text));
  for (size_t cap = 40; cap < 48; cap++) {
    char out[64];
    memset(out, 'Z', sizeof out);
    gw_note_text(&dx->notes[0], 0, out, cap);
    const unsigned char *n = (const unsigned char *)out;
    size_t nlen = strlen(out), at = 0;
    assert_true(nlen < cap && nlen + 3 >= cap - 1);
    assert_memory_equal(out, "No GPU data: x", 14);
    while (at < nlen) {
      size_t k = gw_utf8_seq_len(n + at, nlen - at);
      assert_true(k > 0);
      at += k;
    }
  }
  free(dx);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(rows_match_their_messages),
    cmocka_unit_test(sentences_from_values),
    cmocka_unit_test(long_note_is_cut_at_a_character),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
