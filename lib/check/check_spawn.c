/* Running helper programs for `gpuwhy check` (python3 for PyTorch facts and
 * the GPU load, nvcc -V) with their output captured and a time limit, so a
 * hung interpreter never hangs the checkup. */
#include "check_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CHILD_BUF_CAP 65536

const char *gw_check_program(const struct check_ctx *ctx, const char *opt, const char *env_name,
                             const char *live_default) {
  if (opt && opt[0])
    return opt;
  const char *env = getenv(env_name);
  if (env && env[0])
    return env;
  return ctx->live ? live_default : NULL;
}

/* environ with extra ("NAME=value") added or replacing the same name. */
static char **build_env(const char *extra) {
  size_t n = 0;
  while (environ && environ[n])
    n++;
  char **env = gw_xcalloc(n + 2, sizeof *env);
  size_t name_len = extra ? strcspn(extra, "=") : 0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (extra && strncmp(environ[i], extra, name_len + 1) == 0)
      continue;
    env[k++] = environ[i];
  }
  if (extra)
    env[k++] = (char *)extra;
  env[k] = NULL;
  return env;
}

static int decode_status(int wstatus) {
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return -1;
}

int gw_check_child_start(struct check_child *c, char *const argv[], const char *extra_env, struct gw_err *err) {
  memset(c, 0, sizeof *c);
  c->fd = -1;
  c->pid = -1;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    gw_err_set(err, "cannot make a pipe: %s", gw_strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  char **env = build_env(extra_env);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
  free(env);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    gw_err_set(err, "cannot run %s: %s", argv[0], gw_strerror(rc));
    return -1;
  }
  c->pid = pid;
  c->fd = fds[0];
  c->buf = gw_xcalloc(1, CHILD_BUF_CAP + 1);
  return 0;
}

/* Pass complete lines of c's buffer to on_line and keep the rest. */
static void drain_lines(struct check_child *c, int index, void (*on_line)(void *, int, const char *), void *ctx,
                        int flush) {
  size_t start = 0;
  for (size_t i = 0; i < c->len; i++) {
    if (c->buf[i] != '\n')
      continue;
    c->buf[i] = '\0';
    if (i > start) {
      gw_strlcpy(c->last_line, c->buf + start, sizeof c->last_line);
      if (on_line)
        on_line(ctx, index, c->buf + start);
    }
    start = i + 1;
  }
  if (flush && start < c->len) {
    c->buf[c->len] = '\0';
    gw_strlcpy(c->last_line, c->buf + start, sizeof c->last_line);
    if (on_line)
      on_line(ctx, index, c->buf + start);
    start = c->len;
  }
  memmove(c->buf, c->buf + start, c->len - start);
  c->len -= start;
}

static void reap_if_done(struct check_child *c) {
  int wstatus;
  if (c->exited || c->pid <= 0)
    return;
  if (waitpid(c->pid, &wstatus, WNOHANG) == c->pid) {
    c->exited = 1;
    c->status = decode_status(wstatus);
  }
}

void gw_check_children_poll(struct check_child *kids, int n, int timeout_ms,
                            void (*on_line)(void *ctx, int child, const char *line), void *ctx) {
  struct pollfd pfd[64];
  int which[64];
  int np = 0;
  for (int i = 0; i < n && np < 64; i++) {
    if (kids[i].fd < 0)
      continue;
    pfd[np].fd = kids[i].fd;
    pfd[np].events = POLLIN;
    pfd[np].revents = 0;
    which[np++] = i;
  }
  if (np == 0) {
    for (int i = 0; i < n; i++)
      reap_if_done(&kids[i]);
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return;
  }
  int ready = poll(pfd, (nfds_t)np, timeout_ms);
  if (ready <= 0)
    return;
  for (int k = 0; k < np; k++) {
    if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    struct check_child *c = &kids[which[k]];
    if (c->len >= CHILD_BUF_CAP) /* one endless line: keep its tail */
      c->len = 0;
    ssize_t got = read(c->fd, c->buf + c->len, CHILD_BUF_CAP - c->len);
    if (got > 0) {
      c->len += (size_t)got;
      drain_lines(c, which[k], on_line, ctx, 0);
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      drain_lines(c, which[k], on_line, ctx, 1);
      close(c->fd);
      c->fd = -1;
      reap_if_done(c);
    }
  }
}

void gw_check_child_stop(struct check_child *c) {
  if (c->fd >= 0) {
    close(c->fd);
    c->fd = -1;
  }
  if (c->pid > 0 && !c->exited) {
    int wstatus;
    pid_t r = waitpid(c->pid, &wstatus, WNOHANG);
    if (r == 0) {
      kill(c->pid, SIGKILL);
      r = waitpid(c->pid, &wstatus, 0);
      c->status = -2;
    } else if (r == c->pid) {
      c->status = decode_status(wstatus);
    }
    c->exited = 1;
  }
  free(c->buf);
  c->buf = NULL;
}

static int64_t now_ms(void) {
  return gw_now_monotonic_ns() / 1000000;
}

struct capture {
  char *out;
  size_t cap, used;
};

static void capture_line(void *ctx, int child, const char *line) {
  (void)child;
  struct capture *cp = ctx;
  if (cp->cap == 0 || cp->used + 1 >= cp->cap)
    return;
  int n = snprintf(cp->out + cp->used, cp->cap - cp->used, "%s\n", line);
  if (n > 0)
    cp->used += (size_t)n < cp->cap - cp->used ? (size_t)n : cp->cap - cp->used - 1;
}

int gw_check_run_program(char *const argv[], const char *extra_env, int timeout_ms, char *out, size_t cap) {
  if (cap > 0)
    out[0] = '\0';
  struct check_child c;
  struct gw_err err = {{0}};
  if (gw_check_child_start(&c, argv, extra_env, &err) != 0)
    return -1;
  struct capture cp = {out, cap, 0};
  int64_t deadline = now_ms() + timeout_ms;
  while (c.fd >= 0) {
    int64_t left = deadline - now_ms();
    if (left <= 0)
      break;
    gw_check_children_poll(&c, 1, (int)(left > 200 ? 200 : left), capture_line, &cp);
  }
  /* Output ended: give the process the rest of its time to exit. */
  while (!c.exited && now_ms() < deadline) {
    reap_if_done(&c);
    if (!c.exited) {
      struct timespec ts = {0, 10 * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  int timed_out = !c.exited;
  gw_check_child_stop(&c);
  return timed_out ? -2 : c.status;
}
