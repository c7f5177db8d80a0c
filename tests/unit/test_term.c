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

/* One check of a terminal query: an environment variable set first (value
 * NULL: unset), the colour mode asked for (colour checks only), the answer. */
struct term_check {
  const char *env, *value;
  enum gw_color_mode mode;
  int want;
};

enum term_query { QUERY_COLOR, QUERY_WIDTH };

static void run_checks(enum term_query q, int fd, const struct term_check *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (c[i].value)
      setenv(c[i].env, c[i].value, 1);
    else
      unsetenv(c[i].env);
    int got = q == QUERY_COLOR ? gw_color_use(c[i].mode, fd) : gw_term_width_cols(fd);
    if (got != c[i].want)
      fail_msg("check %zu (%s=%s): %d, expected %d", i, c[i].env, c[i].value ? c[i].value : "(unset)", got, c[i].want);
  }
}

/* The checks on the write end of a pipe: never a terminal. */
static void check_on_a_pipe(enum term_query q, const struct term_check *c, size_t n) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  run_checks(q, fds[1], c, n);
  close(fds[0]);
  close(fds[1]);
}

static void color_modes(void **state) {
  (void)state;
  static const struct {
    const char *word;
    int rc;
    enum gw_color_mode mode;
  } words[] = {{"auto", 0, GW_COLOR_AUTO}, {"always", 0, GW_COLOR_ALWAYS}, {"never", 0, GW_COLOR_NEVER}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    enum gw_color_mode m;
    assert_int_equal(gw_color_mode_parse(words[i].word, &m), words[i].rc);
    assert_int_equal(m, words[i].mode);
  }
  enum gw_color_mode m;
  assert_int_equal(gw_color_mode_parse("sometimes", &m), -1);
  assert_int_equal(gw_color_mode_parse(NULL, &m), -1);

  setenv("TERM", "xterm", 1);
  static const struct term_check on_pipe[] = {
      {"NO_COLOR", NULL, GW_COLOR_AUTO, 0}, /* a pipe */
      {"NO_COLOR", NULL, GW_COLOR_ALWAYS, 1},
      {"NO_COLOR", "1", GW_COLOR_ALWAYS, 1}, /* asked for: NO_COLOR is for auto */
  };
  check_on_a_pipe(QUERY_COLOR, on_pipe, sizeof on_pipe / sizeof on_pipe[0]);

  struct pty p;
  if (open_pty(&p) != 0)
    skip();
  static const struct term_check on_pty[] = {
      {"NO_COLOR", NULL, GW_COLOR_AUTO, 1},  {"NO_COLOR", NULL, GW_COLOR_NEVER, 0},
      {"NO_COLOR", "", GW_COLOR_AUTO, 1}, /* empty: as if unset (no-color.org) */
      {"NO_COLOR", "yes", GW_COLOR_AUTO, 0}, {"NO_COLOR", NULL, GW_COLOR_NEVER, 0},
      {"TERM", "dumb", GW_COLOR_AUTO, 0},
  };
  run_checks(QUERY_COLOR, p.slave, on_pty, sizeof on_pty / sizeof on_pty[0]);
  setenv("TERM", "xterm", 1);
  close_pty(&p);
}

static void width(void **state) {
  (void)state;
  static const struct term_check on_pipe[] = {
      {"COLUMNS", NULL, GW_COLOR_AUTO, 0},  /* a pipe: not wrapped */
      {"COLUMNS", "80", GW_COLOR_AUTO, 80}, /* asked for */
      {"COLUMNS", "80x", GW_COLOR_AUTO, 0},
      {"COLUMNS", "5", GW_COLOR_AUTO, 0}, /* too narrow to mean it */
  };
  check_on_a_pipe(QUERY_WIDTH, on_pipe, sizeof on_pipe / sizeof on_pipe[0]);

  struct pty p;
  if (open_pty(&p) != 0)
    skip();
  struct winsize ws = {.ws_row = 40, .ws_col = 132};
  assert_int_equal(ioctl(p.slave, TIOCSWINSZ, &ws), 0);
  static const struct term_check on_pty[] = {
      {"COLUMNS", NULL, GW_COLOR_AUTO, 132}, {"COLUMNS", "90", GW_COLOR_AUTO, 90}, /* COLUMNS wins */
  };
  run_checks(QUERY_WIDTH, p.slave, on_pty, sizeof on_pty / sizeof on_pty[0]);
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
  /* a table row and a short line stay as they are */
  const char *table = "  productive (SMs working)        29.3%      12.0%\nshort\n";
  const struct {
    const char *text;
    int cols;
    const char *want;
  } cases[] = {
      {"  one two three four five six seven\n", 20, "  one two three four\n    five six seven\n"},
      {"   - GPU 0: alpha beta gamma delta\n", 20, "   - GPU 0: alpha\n     beta gamma\n     delta\n"},
      {"  fixes:   aaa bbb ccc ddd eee\n", 24, "  fixes:   aaa bbb ccc\n           ddd eee\n"},
      {table, 20, table},
      /* a word longer than the width is not broken */
      {"x abcdefghijklmnopqrstuvwxyz y\n", 10, "x\n  abcdefghijklmnopqrstuvwxyz\n  y\n"},
      /* colour codes take no columns */
      {"\033[1mab\033[0m cd ef\n", 8, "\033[1mab\033[0m cd ef\n"},
      /* 0: unchanged, the last line without a newline kept so */
      {"a b c d e f g h i j k l m n o p", 0, "a b c d e f g h i j k l m n o p"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *out = wrap(cases[i].text, cases[i].cols);
    assert_string_equal(out, cases[i].want);
    free(out);
  }
  assert_int_equal(gw_text_width_cols("\xe4\xb8\xad\xe6\x96\x87", 6), 4); /* two wide characters */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(color_modes), cmocka_unit_test(width),
                                     cmocka_unit_test(wrapping)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
