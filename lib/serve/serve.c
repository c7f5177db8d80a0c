/* gpuwhy serve: sampling (or replaying) into window segments on the main
 * thread, HTTP on libmicrohttpd's thread. A scrape gets the cached page;
 * the page is rebuilt (window copy, diagnosis, exposition) at most once per
 * interval, so the work per scrape is bounded whatever the scrape rate. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/record.h>
#include <gpuwhy/serve.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/i18n.h"
#include "serve/prom_text.h"
#include "serve/serve_http.h"
#include "store/store_replay.h"
#include "store/store_window.h"

static volatile sig_atomic_t serve_stop;

static void on_signal(int sig) {
  (void)sig;
  serve_stop = 1;
  gw_record_request_stop();
}

struct server {
  const struct gw_serve_opts *o;
  struct gw_window *window;
  struct gw_prom_state prom;
  pthread_mutex_t mu; /* the cached page */
  char *page;
  size_t page_len;
  int64_t built_mono_ns;
  int have_page;
  int64_t stop_mono_ns; /* INT64_MAX: run until a signal */
  unsigned segment;     /* live mode: the segment being recorded */
  int segment_announced;
};

/* The HTTP thread's callback: the cached page, rebuilt when older than the interval. */
static char *metrics_page(void *ctx, size_t *len) {
  struct server *s = ctx;
  pthread_mutex_lock(&s->mu);
  int64_t now = gw_now_monotonic_ns();
  if (!s->have_page || now - s->built_mono_ns >= (int64_t)s->o->interval_ms * 1000000LL) {
    char path[600];
    struct gw_err err = {{0}};
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    gw_status rc = f ? gw_window_build(s->window, path, sizeof path, &err) : GW_ENOMEM;
    if (!rc)
      rc = gw_prom_write(&s->prom, path, f, &err);
    if (f)
      fclose(f);
    if (rc) {
      fprintf(stderr, "gpuwhy serve: %s\n", err.msg[0] ? err.msg : _("cannot build the metrics"));
      free(buf);
    } else {
      free(s->page);
      s->page = buf;
      s->page_len = n;
      s->have_page = 1;
    }
    /* a failure is retried only after the interval too: no rebuild storm */
    s->built_mono_ns = now;
  }
  char *copy = NULL;
  if (s->have_page) {
    copy = malloc(s->page_len + 1);
    if (copy) {
      memcpy(copy, s->page, s->page_len);
      copy[s->page_len] = '\0';
      *len = s->page_len;
    }
  }
  pthread_mutex_unlock(&s->mu);
  return copy;
}

static int stop_due(const struct server *s) {
  return serve_stop || gw_now_monotonic_ns() >= s->stop_mono_ns;
}

/* Live mode: the recorder writes one segment per window length. */
static int on_tick(void *ctx, const struct gw_tick *t) {
  (void)t;
  struct server *s = ctx;
  if (!s->segment_announced) { /* the segment file exists from the first tick on */
    gw_window_segment_started(s->window, s->segment);
    s->segment_announced = 1;
  }
  return stop_due(s);
}

static int run_live(struct server *s, char *msg, size_t cap) {
  const struct gw_serve_opts *o = s->o;
  for (s->segment = 0; !stop_due(s); s->segment++) {
    char path[600];
    gw_window_segment_path(s->window, s->segment, path, sizeof path);
    struct gw_record_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.out_path = path;
    ro.interval_ms = o->sample_interval_ms;
    ro.gpm_interval_ms = o->sample_interval_ms;
    ro.duration_s = o->window_s;
    ro.nvml_lib = o->nvml_lib;
    ro.root = o->root;
    ro.quiet = 1;
    ro.on_tick = on_tick;
    ro.tick_ctx = s;
    s->segment_announced = 0;
    int64_t began = gw_now_monotonic_ns();
    char rmsg[1024] = "";
    int status = gw_record_run(&ro, rmsg, sizeof rmsg);
    if (status != 0 && status != 128 + SIGINT && status != 128 + SIGTERM) {
      snprintf(msg, cap, _("sampling stopped: %s"), rmsg[0] ? rmsg : _("the recorder failed"));
      return status == GPUWHY_EXIT_USAGE ? GPUWHY_EXIT_USAGE : GPUWHY_EXIT_INPUT;
    }
    /* the recorder catches SIGINT/SIGTERM while it runs: a segment that
     * ended early was stopped by one */
    if (gw_now_monotonic_ns() - began < ((int64_t)o->window_s * 1000 - 2LL * o->sample_interval_ms) * 1000000LL)
      serve_stop = 1;
  }
  return GPUWHY_EXIT_OK;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !serve_stop)
    ;
}

static int run_replay(struct server *s, struct gw_replay *r, char *msg, size_t cap) {
  const struct gw_serve_opts *o = s->o;
  struct gw_err err = {{0}};
  int rc = GPUWHY_EXIT_OK;
  for (unsigned k = 0; !stop_due(s) && rc == GPUWHY_EXIT_OK; k++) {
    char path[600];
    gw_window_segment_path(s->window, k, path, sizeof path);
    if (gw_replay_begin_segment(r, path, &err) != GW_OK) {
      snprintf(msg, cap, "%s", err.msg);
      rc = GPUWHY_EXIT_INPUT;
      break;
    }
    gw_window_segment_started(s->window, k);
    int64_t seg_end = gw_now_monotonic_ns() + (int64_t)o->window_s * 1000000000LL;
    while (!stop_due(s) && gw_now_monotonic_ns() < seg_end) {
      if (gw_replay_advance(r, gw_now_realtime_ns(), &err) != GW_OK) {
        snprintf(msg, cap, "%s", err.msg);
        rc = GPUWHY_EXIT_INPUT;
        break;
      }
      sleep_ms(o->sample_interval_ms);
    }
  }
  return rc;
}

int gw_serve_run(const struct gw_serve_opts *o, char *msg, size_t cap) {
  msg[0] = '\0';
  if (o->interval_ms < 100 || o->sample_interval_ms < 10 || o->window_s < 10) {
    snprintf(msg, cap, "%s", _("--interval must be at least 100 ms, --sample-interval 10 ms and --window 10 s"));
    return GPUWHY_EXIT_USAGE;
  }
  char dir[512];
  const char *tmp;
  if (gw_make_temp_dir("gpuwhy-serve", dir, sizeof dir, &tmp) != 0) {
    snprintf(msg, cap, _("cannot create a working folder under %s: %s"), tmp, strerror(errno));
    return GPUWHY_EXIT_INPUT;
  }
  struct server s;
  memset(&s, 0, sizeof s);
  s.o = o;
  pthread_mutex_init(&s.mu, NULL);
  s.stop_mono_ns = o->duration_s > 0 ? gw_now_monotonic_ns() + (int64_t)(o->duration_s * 1e9) : INT64_MAX;
  gw_prom_state_init(&s.prom, gw_now_realtime_ns(), o->replay_path ? "replay" : "live", o->window_s);
  struct gw_err err = {{0}};
  int rc = GPUWHY_EXIT_OK;
  struct gw_http *http = NULL;
  struct gw_replay *replay = NULL;
  if (gw_window_open(&s.window, dir, (int64_t)o->window_s * 1000000000LL, &err) != GW_OK) {
    snprintf(msg, cap, "%s", err.msg);
    rc = GPUWHY_EXIT_INPUT;
    goto out;
  }
  /* a bad recording is reported before anything listens */
  if (o->replay_path && gw_replay_open(&replay, o->replay_path, dir, gw_now_realtime_ns(), &err) != GW_OK) {
    snprintf(msg, cap, "--replay: %s", err.msg);
    rc = GPUWHY_EXIT_INPUT;
    goto out;
  }
  char bound[300];
  const char *listen = o->listen ? o->listen : "127.0.0.1:9464";
  gw_status hs = gw_http_start(&http, listen, o->max_connections, metrics_page, &s, bound, sizeof bound, &err);
  if (hs != GW_OK) {
    snprintf(msg, cap, "%s", err.msg);
    rc = hs == GW_EINPUT ? GPUWHY_EXIT_USAGE : GPUWHY_EXIT_INPUT;
    goto out;
  }
  if (!o->quiet) {
    fprintf(stderr, _("gpuwhy serve: metrics at http://%s/metrics (%s; window %d s, rebuilt at most every %.1f s)\n"),
            bound, o->replay_path ? _("replaying a recording") : _("live"), o->window_s, o->interval_ms / 1000.0);
    fflush(stderr);
  }
  serve_stop = 0;
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  rc = replay ? run_replay(&s, replay, msg, cap) : run_live(&s, msg, cap);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
out:
  gw_http_stop(http);
  gw_replay_close(replay);
  gw_window_close(s.window);
  rmdir(dir);
  free(s.page);
  pthread_mutex_destroy(&s.mu);
  return rc;
}
