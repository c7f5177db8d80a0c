/* gpuwhy watch: a live view per GPU with SM activity beside nvidia-smi's
 * GPU-Util, power against its limit, clocks and their reasons, PCIe, plus CPU,
 * the target's processes and disks. ncurses on a terminal, plain text with
 * --plain (or when stdout is not a terminal). */
#include <curses.h>
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/record.h>
#include <gpuwhy/watch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "cli.h"
#include "cli_options.h"

struct watch {
  int plain;
  long count, frames;
  int said_gpu_note; /* --plain: the "no GPU data" line is printed in the first frame only */
  struct gw_watch_view *view;
};

/* The usage text, translated when printed. */
static const char *watch_usage(void) {
  return _("usage: gpuwhy watch [--interval MS] [-o FILE] [--plain] [--count N] [--pid PID | [--] CMD [ARGS...]]\n"
           "\n"
           "Live view of every GPU with what nvidia-smi leaves out: real SM activity\n"
           "beside GPU-Util, power against its limit, clocks and why they are low,\n"
           "PCIe traffic, and the CPU, processes and disks feeding the GPU.\n"
           "\n"
           "  -i, --interval MS  refresh period (default 500)\n"
           "  -o, --output FILE  also record everything to FILE\n"
           "  -p, --pid PID      follow this process and its children\n"
           "      --plain        print text frames instead of a full-screen view\n"
           "  -n, --count N      stop after N frames\n"
           "  -h, --help         this help\n"
           "  -V, --version      the version\n"
           "  q quits the full-screen view.\n");
}

static int on_tick(void *ctx, const struct gw_tick *t) {
  struct watch *w = ctx;
  gw_watch_view_update(w->view, t);
  w->frames++;
  int n = gw_watch_view_lines(w->view), alert;
  if (w->plain) {
    /* the view's own line (watch_view.c), the same text in every frame */
    char note[600] = "";
    if (t->gpu_note)
      snprintf(note, sizeof note, _("no GPU data: %s"), t->gpu_note);
    for (int i = 0; i < n; i++) {
      const char *line = gw_watch_view_line(w->view, i, &alert);
      if (note[0] && strcmp(line, note) == 0) {
        if (w->said_gpu_note)
          continue; /* a log of frames says it once, not every frame */
        w->said_gpu_note = 1;
      }
      printf("%s\n", line);
    }
    printf("\n");
    fflush(stdout);
  } else {
    erase();
    for (int i = 0; i < n && i < LINES - 1; i++) {
      const char *line = gw_watch_view_line(w->view, i, &alert);
      if (alert)
        attron(A_BOLD | A_REVERSE);
      mvaddnstr(i, 0, line, COLS);
      if (alert)
        attroff(A_BOLD | A_REVERSE);
    }
    mvaddstr(LINES - 1, 0, _("q: quit"));
    refresh();
    int ch = getch();
    if (ch == 'q' || ch == 'Q')
      return 1;
  }
  return w->count > 0 && w->frames >= w->count;
}

int gw_cmd_watch(int argc, char **argv) {
  struct gw_record_opts o = {.interval_ms = 500, .gpm_interval_ms = 500};
  struct watch w = {0};
  int count = 0;
  const struct gw_cli_option options[] = {
      {"interval", required_argument, 'i', GW_CLI_INT, &o.interval_ms,
       N_("--interval wants milliseconds between 100 and 600000, got '%s'"), 100, 600000},
      {"output", required_argument, 'o', GW_CLI_STRING, &o.out_path},
      {"pid", required_argument, 'p', GW_CLI_INT, &o.pid, N_("--pid wants a process id, got '%s'"), 1, 1 << 30},
      {"plain", no_argument, 'P', GW_CLI_FLAG, &w.plain},
      {"count", required_argument, 'n', GW_CLI_INT, &count, N_("--count wants a positive number, got '%s'"), 1,
       1 << 30},
      {"root", required_argument, 'R', GW_CLI_STRING, &o.root},
      {"nvml-lib", required_argument, 'N', GW_CLI_STRING, &o.nvml_lib},
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  int rc = GW_CLI_PARSE(argc, argv, "+:i:o:p:n:hV", options, watch_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  if (optind < argc)
    o.argv = argv + optind;
  w.count = count;
  if (!isatty(STDOUT_FILENO))
    w.plain = 1;
  o.on_tick = on_tick;
  o.tick_ctx = &w;
  if (!w.plain) {
    initscr();
    cbreak();
    noecho();
    nodelay(stdscr, TRUE);
    curs_set(0);
  }
  char msg[1024];
  w.view = gw_watch_view_new();
  int status = gw_record_run(&o, msg, sizeof msg);
  /* Without a command there is no status of its own to keep apart from ours. */
  if (!o.argv && status == GPUWHY_EXIT_TOOL_FAILED)
    status = GPUWHY_EXIT_INPUT;
  gw_watch_view_free(w.view);
  if (!w.plain)
    endwin();
  if (msg[0])
    fprintf(stderr, "gpuwhy watch: %s\n", msg); /* msg is translated where it is made */
  return status;
}
