/* Suggested next runs with the recorded command in place of CMD
 * (analysis/next_run.c): shell quoting, the sweep's {bs}, and CMD kept where
 * the command is unknown or does not fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/next_run.h"
#include "support_test_main.h"

static void with_command(struct gw_recording *rec, char **argv) {
  memset(rec, 0, sizeof *rec);
  rec->command_argv = argv;
  while (argv[rec->command_argc])
    rec->command_argc++;
}

static void quoting(void **state) {
  (void)state;
  static const struct {
    const char *word;
    size_t cap;
    int rc;
    const char *want; /* NULL: refused */
  } cases[] = {
      {"train.py", 64, 0, "train.py"},
      {"--lr=1e-3", 64, 0, "--lr=1e-3"},
      {"a b", 64, 0, "'a b'"},
      {"it's $HOME", 64, 0, "'it'\\''s $HOME'"},
      {"", 64, 0, "''"},
      {"a b", 4, -1, NULL}, /* no room for the closing quote: refused, not cut */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[64];
    assert_int_equal(gw_shell_quote(cases[i].word, buf, cases[i].cap), cases[i].rc);
    if (cases[i].want)
      assert_string_equal(buf, cases[i].want);
  }
}

/* A template, the recorded command (NULL: none recorded), the room for the
 * result and the command the user is shown. */
struct next_run_case {
  char **argv;
  const char *tmpl;
  size_t cap;
  const char *want;
};

static void check_next_runs(const struct next_run_case *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    struct gw_recording rec;
    memset(&rec, 0, sizeof rec);
    if (c[i].argv)
      with_command(&rec, c[i].argv);
    char buf[256];
    assert_true(c[i].cap <= sizeof buf);
    gw_next_run_command(&rec, c[i].tmpl, buf, c[i].cap);
    assert_string_equal(buf, c[i].want);
  }
}

#define SWEEP "gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}"

static void command_filled_in(void **state) {
  (void)state;
  char *argv[] = {"python3", "train.py", "--data", "/my data", NULL};
  const struct next_run_case cases[] = {
      {argv, "gpuwhy experiment fixed-batch -- CMD", 256,
       "gpuwhy experiment fixed-batch -- python3 train.py --data '/my data'"},
      {argv, "gpuwhy record --trace=full -o traced.db -- CMD", 256,
       "gpuwhy record --trace=full -o traced.db -- python3 train.py --data '/my data'"},
      /* no batch option in the command: the sweep appends one */
      {argv, SWEEP, 256, "gpuwhy sweep --param bs=32,64,128 -- python3 train.py --data '/my data' --batch-size {bs}"},
  };
  check_next_runs(cases, sizeof cases / sizeof cases[0]);
}

static void sweep_takes_the_batch_option(void **state) {
  (void)state;
  char *spaced[] = {"python3", "t.py", "--batch-size", "4", "--lr", "0.1", NULL};
  char *joined[] = {"torchrun", "t.py", "--batch_size=16", NULL};
  char *other[] = {"python3", "t.py", "--batch-size-eval", "8", NULL};
  const struct next_run_case cases[] = {
      {spaced, SWEEP, 256, "gpuwhy sweep --param bs=32,64,128 -- python3 t.py --batch-size {bs} --lr 0.1"},
      {joined, SWEEP, 256, "gpuwhy sweep --param bs=32,64,128 -- torchrun t.py --batch_size={bs}"},
      /* an option that only starts like one is not it */
      {other, SWEEP, 256, "gpuwhy sweep --param bs=32,64,128 -- python3 t.py --batch-size-eval 8 --batch-size {bs}"},
  };
  check_next_runs(cases, sizeof cases / sizeof cases[0]);
}

static void cmd_kept_when_unknown_or_too_long(void **state) {
  (void)state;
  char buf[48];
  gw_next_run_command(NULL, "gpuwhy experiment fixed-batch -- CMD", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy experiment fixed-batch -- CMD");
  char *argv[] = {"python3", "a_rather_long_training_script_name.py", NULL};
  const struct next_run_case cases[] = {
      {NULL, "gpuwhy experiment fixed-batch -- CMD", 48, "gpuwhy experiment fixed-batch -- CMD"},
      /* the whole command does not fit: CMD, never a command cut short */
      {argv, "gpuwhy experiment fixed-batch -- CMD", 48, "gpuwhy experiment fixed-batch -- CMD"},
      /* a template without CMD is left alone */
      {argv, "gpuwhy check", 48, "gpuwhy check"},
  };
  check_next_runs(cases, sizeof cases / sizeof cases[0]);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(quoting),
    cmocka_unit_test(command_filled_in),
    cmocka_unit_test(sweep_takes_the_batch_option),
    cmocka_unit_test(cmd_kept_when_unknown_or_too_long),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
