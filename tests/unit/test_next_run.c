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

static void with_command(struct gw_recording *rec, char **argv) {
  memset(rec, 0, sizeof *rec);
  rec->command_argv = argv;
  while (argv[rec->command_argc])
    rec->command_argc++;
}

static void quoting(void **state) {
  (void)state;
  char buf[64];
  assert_int_equal(gw_shell_quote("train.py", buf, sizeof buf), 0);
  assert_string_equal(buf, "train.py");
  assert_int_equal(gw_shell_quote("--lr=1e-3", buf, sizeof buf), 0);
  assert_string_equal(buf, "--lr=1e-3");
  assert_int_equal(gw_shell_quote("a b", buf, sizeof buf), 0);
  assert_string_equal(buf, "'a b'");
  assert_int_equal(gw_shell_quote("it's $HOME", buf, sizeof buf), 0);
  assert_string_equal(buf, "'it'\\''s $HOME'");
  assert_int_equal(gw_shell_quote("", buf, sizeof buf), 0);
  assert_string_equal(buf, "''");
  /* no room for the closing quote: refused, not cut */
  assert_int_equal(gw_shell_quote("a b", buf, 4), -1);
}

static void command_filled_in(void **state) {
  (void)state;
  char *argv[] = {"python3", "train.py", "--data", "/my data", NULL};
  struct gw_recording rec;
  with_command(&rec, argv);
  char buf[256];
  gw_next_run_command(&rec, "gpuwhy experiment fixed-batch -- CMD", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy experiment fixed-batch -- python3 train.py --data '/my data'");
  gw_next_run_command(&rec, "gpuwhy record --trace=full -o traced.db -- CMD", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy record --trace=full -o traced.db -- python3 train.py --data '/my data'");
  /* no batch option in the command: the sweep appends one */
  gw_next_run_command(&rec, "gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy sweep --param bs=32,64,128 -- python3 train.py --data '/my data' --batch-size {bs}");
}

static void sweep_takes_the_batch_option(void **state) {
  (void)state;
  char buf[256];
  struct gw_recording rec;
  char *spaced[] = {"python3", "t.py", "--batch-size", "4", "--lr", "0.1", NULL};
  with_command(&rec, spaced);
  gw_next_run_command(&rec, "gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy sweep --param bs=32,64,128 -- python3 t.py --batch-size {bs} --lr 0.1");
  char *joined[] = {"torchrun", "t.py", "--batch_size=16", NULL};
  with_command(&rec, joined);
  gw_next_run_command(&rec, "gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy sweep --param bs=32,64,128 -- torchrun t.py --batch_size={bs}");
  /* an option that only starts like one is not it */
  char *other[] = {"python3", "t.py", "--batch-size-eval", "8", NULL};
  with_command(&rec, other);
  gw_next_run_command(&rec, "gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy sweep --param bs=32,64,128 -- python3 t.py --batch-size-eval 8 --batch-size {bs}");
}

static void cmd_kept_when_unknown_or_too_long(void **state) {
  (void)state;
  char buf[48];
  struct gw_recording rec;
  memset(&rec, 0, sizeof rec);
  gw_next_run_command(&rec, "gpuwhy experiment fixed-batch -- CMD", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy experiment fixed-batch -- CMD");
  gw_next_run_command(NULL, "gpuwhy experiment fixed-batch -- CMD", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy experiment fixed-batch -- CMD");
  char *argv[] = {"python3", "a_rather_long_training_script_name.py", NULL};
  with_command(&rec, argv);
  /* the whole command does not fit: CMD, never a command cut short */
  gw_next_run_command(&rec, "gpuwhy experiment fixed-batch -- CMD", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy experiment fixed-batch -- CMD");
  /* a template without CMD is left alone */
  gw_next_run_command(&rec, "gpuwhy check", buf, sizeof buf);
  assert_string_equal(buf, "gpuwhy check");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(quoting),
      cmocka_unit_test(command_filled_in),
      cmocka_unit_test(sweep_takes_the_batch_option),
      cmocka_unit_test(cmd_kept_when_unknown_or_too_long),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
