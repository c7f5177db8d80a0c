/* Colour and wrap width decisions (lib/core/term.c): --color, NO_COLOR,
 * TERM=dumb and a terminal; COLUMNS, the terminal's size and the fallback;
 * prose wrapped with table rows and long words kept whole. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <cmocka.h>

#include <gpuwhy/term.h>

struct pty {
  int master, slave;
};

/* A pseudo-terminal, so "is a terminal" is true without a real one; skipped
 * where the system has none to give. */
static int open_pty(struct pty *p) {
  p->slave = -1;
  p->master = posix_openpt(O_RDWR | O_NOCTTY);
  if (p->master < 0 || grantpt(p->master) != 0 || unlockpt(p->master) != 0)
    return -1;
  const char *name = ptsname(p->master);
  p->slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
  return p->slave < 0 ? -1 : 0;
}

static void close_pty(struct pty *p) {
  close(p->slave);
  close(p->master);
}

static void color_modes(void **state) {
  (void)state;
  enum gw_color_mode m;
  assert_int_equal(gw_color_mode_parse("auto", &m), 0);
  assert_int_equal(m, GW_COLOR_AUTO);
  assert_int_equal(gw_color_mode_parse("always", &m), 0);
  assert_int_equal(m, GW_COLOR_ALWAYS);
  assert_int_equal(gw_color_mode_parse("never", &m), 0);
  assert_int_equal(m, GW_COLOR_NEVER);
  assert_int_equal(gw_color_mode_parse("sometimes", &m), -1);
  assert_int_equal(gw_color_mode_parse(NULL, &m), -1);

  int fds[2];
  assert_int_equal(pipe(fds), 0);
  unsetenv("NO_COLOR");
  setenv("TERM", "xterm", 1);
  assert_int_equal(gw_color_use(GW_COLOR_AUTO, fds[1]), 0); /* a pipe */
  assert_int_equal(gw_color_use(GW_COLOR_ALWAYS, fds[1]), 1);
  setenv("NO_COLOR", "1", 1);
  assert_int_equal(gw_color_use(GW_COLOR_ALWAYS, fds[1]), 1); /* asked for: NO_COLOR is for auto */
  close(fds[0]);
  close(fds[1]);

  struct pty p;
  if (open_pty(&p) != 0)
    skip();
  unsetenv("NO_COLOR");
  assert_int_equal(gw_color_use(GW_COLOR_AUTO, p.slave), 1);
  assert_int_equal(gw_color_use(GW_COLOR_NEVER, p.slave), 0);
  setenv("NO_COLOR", "", 1); /* empty: as if unset (no-color.org) */
  assert_int_equal(gw_color_use(GW_COLOR_AUTO, p.slave), 1);
  setenv("NO_COLOR", "yes", 1);
  assert_int_equal(gw_color_use(GW_COLOR_AUTO, p.slave), 0);
  unsetenv("NO_COLOR");
  setenv("TERM", "dumb", 1);
  assert_int_equal(gw_color_use(GW_COLOR_AUTO, p.slave), 0);
  setenv("TERM", "xterm", 1);
  close_pty(&p);
}

static void width(void **state) {
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  unsetenv("COLUMNS");
  assert_int_equal(gw_term_width_cols(fds[1]), 0); /* a pipe: not wrapped */
  setenv("COLUMNS", "80", 1);
  assert_int_equal(gw_term_width_cols(fds[1]), 80); /* asked for */
  setenv("COLUMNS", "80x", 1);
  assert_int_equal(gw_term_width_cols(fds[1]), 0);
  setenv("COLUMNS", "5", 1); /* too narrow to mean it */
  assert_int_equal(gw_term_width_cols(fds[1]), 0);
  close(fds[0]);
  close(fds[1]);

  struct pty p;
  if (open_pty(&p) != 0)
    skip();
  unsetenv("COLUMNS");
  struct winsize ws = {.ws_row = 40, .ws_col = 132};
  assert_int_equal(ioctl(p.slave, TIOCSWINSZ, &ws), 0);
  assert_int_equal(gw_term_width_cols(p.slave), 132);
  setenv("COLUMNS", "90", 1);
  assert_int_equal(gw_term_width_cols(p.slave), 90); /* COLUMNS wins */
  unsetenv("COLUMNS");
  ws.ws_col = 0; /* a terminal that does not say */
  assert_int_equal(ioctl(p.slave, TIOCSWINSZ, &ws), 0);
  assert_int_equal(gw_term_width_cols(p.slave), 100);
  close_pty(&p);
}

static char *wrap(const char *text, int cols) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  gw_text_wrap(f, text, strlen(text), cols);
  fclose(f);
  return buf;
}

static void wrapping(void **state) {
  (void)state;
  char *out = wrap("  one two three four five six seven\n", 20);
  assert_string_equal(out, "  one two three four\n    five six seven\n");
  free(out);
  out = wrap("   - GPU 0: alpha beta gamma delta\n", 20);
  assert_string_equal(out, "   - GPU 0: alpha\n     beta gamma\n     delta\n");
  free(out);
  out = wrap("  fixes:   aaa bbb ccc ddd eee\n", 24);
  assert_string_equal(out, "  fixes:   aaa bbb ccc\n           ddd eee\n");
  free(out);
  /* a table row and a short line stay as they are */
  const char *table = "  productive (SMs working)        29.3%      12.0%\nshort\n";
  out = wrap(table, 20);
  assert_string_equal(out, table);
  free(out);
  /* a word longer than the width is not broken */
  out = wrap("x abcdefghijklmnopqrstuvwxyz y\n", 10);
  assert_string_equal(out, "x\n  abcdefghijklmnopqrstuvwxyz\n  y\n");
  free(out);
  /* colour codes take no columns */
  out = wrap("\033[1mab\033[0m cd ef\n", 8);
  assert_string_equal(out, "\033[1mab\033[0m cd ef\n");
  free(out);
  /* 0: unchanged, the last line without a newline kept so */
  out = wrap("a b c d e f g h i j k l m n o p", 0);
  assert_string_equal(out, "a b c d e f g h i j k l m n o p");
  free(out);
  assert_int_equal(gw_text_width_cols("\xe4\xb8\xad\xe6\x96\x87", 6), 4); /* two wide characters */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(color_modes), cmocka_unit_test(width),
                                     cmocka_unit_test(wrapping)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
