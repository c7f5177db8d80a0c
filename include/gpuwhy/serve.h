/* libgpuwhy public API for `gpuwhy serve`: a Prometheus exporter of every
 * GPU metric, the host, and a live diagnosis of a sliding window. */
#ifndef GPUWHY_SERVE_H
#define GPUWHY_SERVE_H

#include <stddef.h>

struct gw_serve_opts {
  const char *listen;       /* "127.0.0.1:9464" when NULL */
  int interval_ms;          /* the page is rebuilt at most this often (scrapes in between get the cached one) */
  int sample_interval_ms;   /* sampling period of the GPUs and the host */
  int window_s;             /* length of the diagnosed window */
  unsigned max_connections; /* open HTTP connections at once */
  const char *replay_path;  /* serve this recording's samples as if live, instead of sampling */
  double duration_s;        /* stop after this long; 0 runs until SIGINT or SIGTERM */
  const char *nvml_lib;     /* NULL: default search (tests pass the fake) */
  const char *root;         /* NULL: live /proc and /sys; else a fixture root */
  int quiet;                /* no start-up line on stderr */
};

/* Run the exporter until stopped. Returns GPUWHY_EXIT_OK, or
 * GPUWHY_EXIT_USAGE / GPUWHY_EXIT_INPUT with the reason in msg. */
int gw_serve_run(const struct gw_serve_opts *opts, char *msg, size_t msg_cap);

#endif
