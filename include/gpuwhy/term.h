/* How text output meets a terminal: whether to colour it and how wide to
 * wrap it. One place decides, so every command behaves the same. */
#ifndef GPUWHY_TERM_H
#define GPUWHY_TERM_H

#include <stddef.h>
#include <stdio.h>

enum gw_color_mode { GW_COLOR_AUTO, GW_COLOR_ALWAYS, GW_COLOR_NEVER };

/* "auto", "always" or "never" (also "yes"/"no"/"tty" as ls and grep take
 * them): 0 with *out set, -1 for anything else. */
int gw_color_mode_parse(const char *name, enum gw_color_mode *out);
/* 1 when output on fd is to be coloured. auto: fd is a terminal, NO_COLOR is
 * unset or empty, and TERM is not "dumb". */
int gw_color_use(enum gw_color_mode mode, int fd);

/* The width to wrap text written to fd at, in columns: COLUMNS when it is set
 * to a number (a terminal or not: the user asked), else the terminal's width
 * when fd is one (TERMINAL_FALLBACK_COLS when it will not say); 0 (do not
 * wrap) for a file or pipe without COLUMNS, so saved output stays stable. */
int gw_term_width_cols(int fd);

/* Columns a line of text takes on a terminal: ANSI escapes take none, UTF-8
 * sequences one, East Asian wide characters two. */
size_t gw_text_width_cols(const char *s, size_t len);

/* Write text to out with prose lines wider than width_cols wrapped at spaces
 * (continuation lines indented under the text, past a "- " or "1. " bullet
 * or a "label:  " column). Table rows (columns aligned by runs of spaces) and
 * words longer than the width are left whole. width_cols <= 0: unchanged. */
void gw_text_wrap(FILE *out, const char *text, size_t len, int width_cols);

#endif
