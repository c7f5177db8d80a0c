/* Colour and width decisions for text on a terminal (include/gpuwhy/term.h). */
#include <gpuwhy/term.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A terminal that will not tell its size (a serial console, some CI logs)
 * gets the width most report lines were written for. */
#define TERMINAL_FALLBACK_COLS 100
/* Narrower than this, wrapping prose leaves a word or two a line: COLUMNS
 * below it is taken as a mistake and ignored. */
#define MIN_WRAP_COLS 20
/* A "label:" that opens a prose line (explain's "signals:", "fixes:") is
 * at most this long; continuation lines go under the text after it. */
#define MAX_LABEL_COLS 16
/* Continuation lines of a plain prose line sit this far in from its start. */
#define CONTINUATION_INDENT_COLS 2

int gw_color_mode_parse(const char *name, enum gw_color_mode *out) {
  if (!name)
    return -1;
  if (strcmp(name, "auto") == 0 || strcmp(name, "tty") == 0 || strcmp(name, "if-tty") == 0)
    *out = GW_COLOR_AUTO;
  else if (strcmp(name, "always") == 0 || strcmp(name, "yes") == 0 || strcmp(name, "force") == 0)
    *out = GW_COLOR_ALWAYS;
  else if (strcmp(name, "never") == 0 || strcmp(name, "no") == 0 || strcmp(name, "none") == 0)
    *out = GW_COLOR_NEVER;
  else
    return -1;
  return 0;
}

int gw_color_use(enum gw_color_mode mode, int fd) {
  if (mode != GW_COLOR_AUTO)
    return mode == GW_COLOR_ALWAYS;
  const char *no_color = getenv("NO_COLOR"); /* no-color.org: any non-empty value */
  if (no_color && no_color[0])
    return 0;
  const char *term = getenv("TERM");
  if (term && strcmp(term, "dumb") == 0)
    return 0;
  return isatty(fd);
}

int gw_term_width_cols(int fd) {
  const char *columns = getenv("COLUMNS");
  if (columns && columns[0]) {
    char *end;
    long v = strtol(columns, &end, 10);
    if (*end == '\0' && v >= MIN_WRAP_COLS && v <= 100000)
      return (int)v;
  }
  if (!isatty(fd))
    return 0;
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= MIN_WRAP_COLS)
    return ws.ws_col;
  return TERMINAL_FALLBACK_COLS;
}

/* The blocks of East Asian wide characters (Unicode EastAsianWidth W/F) that
 * translated text uses: CJK, Hangul, full-width forms. */
static int wide_codepoint(unsigned long cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6);
}

size_t gw_text_width_cols(const char *s, size_t len) {
  size_t cols = 0;
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)s[i];
    if (c == 0x1b && i + 1 < len && s[i + 1] == '[') { /* CSI ... final byte: no width */
      i += 2;
      while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
        i++;
      i++;
      continue;
    }
    size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 1;
    unsigned long cp = n == 1 ? c : c & (0x7fu >> n);
    for (size_t k = 1; k < n; k++)
      cp = i + k < len ? (cp << 6) | ((unsigned char)s[i + k] & 0x3fu) : cp;
    cols += wide_codepoint(cp) ? 2 : 1;
    i += n;
  }
  return cols;
}

/* Where the text of this prose line starts after its indent, bullet or
 * label, in bytes, with in *cont_cols the column its continuation lines
 * start at; -1 when the line is a table row to keep whole. */
static long hanging_indent(const char *line, size_t len, size_t *cont_cols) {
  size_t indent = 0;
  while (indent < len && line[indent] == ' ')
    indent++;
  size_t hang = indent;
  size_t word_end = indent;
  while (word_end < len && line[word_end] != ' ')
    word_end++;
  size_t digits = indent;
  while (digits < len && line[digits] >= '0' && line[digits] <= '9')
    digits++;
  if (word_end == indent + 1 && (line[indent] == '-' || line[indent] == '*'))
    hang = word_end + 1; /* "- " */
  else if (digits > indent && word_end == digits + 1 && (line[digits] == '.' || line[digits] == ')'))
    hang = word_end + 1; /* "1. ", "2) " */
  else if (word_end > indent + 1 && word_end - indent <= MAX_LABEL_COLS && line[word_end - 1] == ':')
    hang = word_end; /* "signals: ", "fixes:   " */
  if (hang > indent)
    while (hang < len && line[hang] == ' ')
      hang++;
  /* columns aligned by runs of spaces after that: a table row */
  for (size_t i = hang; i + 1 < len; i++)
    if (line[i] == ' ' && line[i + 1] == ' ')
      return -1;
  if (hang >= len)
    hang = indent;
  *cont_cols = gw_text_width_cols(line, hang);
  /* plain prose: continuation lines two columns in, so they read as one item */
  if (hang == indent)
    *cont_cols += CONTINUATION_INDENT_COLS;
  return (long)hang;
}

static void wrap_line(FILE *out, const char *line, size_t len, int width_cols) {
  size_t hang_cols = 0;
  long hang = hanging_indent(line, len, &hang_cols);
  if (gw_text_width_cols(line, len) <= (size_t)width_cols || hang < 0 || hang_cols >= (size_t)width_cols / 2) {
    fwrite(line, 1, len, out);
    return;
  }
  fwrite(line, 1, (size_t)hang, out); /* the first line keeps its indent, bullet or label */
  size_t pos = (size_t)hang, cols = gw_text_width_cols(line, (size_t)hang);
  int words_on_line = 0;
  while (pos < len) {
    size_t word = pos;
    while (word < len && line[word] == ' ')
      word++;
    if (word >= len)
      break;
    size_t word_end = word;
    while (word_end < len && line[word_end] != ' ')
      word_end++;
    size_t word_cols = gw_text_width_cols(line + word, word_end - word);
    if (words_on_line && cols + (word - pos) + word_cols > (size_t)width_cols) {
      fputc('\n', out);
      for (size_t k = 0; k < hang_cols; k++)
        fputc(' ', out);
      cols = hang_cols;
      words_on_line = 0;
    }
    if (words_on_line) { /* the spaces between words as they were */
      fwrite(line + pos, 1, word - pos, out);
      cols += word - pos;
    }
    fwrite(line + word, 1, word_end - word, out);
    cols += word_cols;
    words_on_line = 1;
    pos = word_end;
  }
}

void gw_text_wrap(FILE *out, const char *text, size_t len, int width_cols) {
  if (width_cols <= 0) {
    fwrite(text, 1, len, out);
    return;
  }
  size_t pos = 0;
  while (pos < len) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t line_len = nl ? (size_t)(nl - (text + pos)) : len - pos;
    wrap_line(out, text + pos, line_len, width_cols);
    if (nl)
      fputc('\n', out);
    pos += line_len + (nl ? 1 : 0);
  }
}
