/* The exporter's HTTP side (lib/serve/serve_http.h) as a scraper or a port
 * scanner meets it: the input goes down a TCP connection to the server
 * running in this process, then a normal scrape must still get its page.
 * The same bytes also go through the --listen parser. libmicrohttpd itself
 * is not instrumented, so this shows robustness (no crash, leak or stuck
 * server) more than it explores. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "fuzz_util.h"
#include "serve/serve_http.h"

static const char PAGE[] = "# HELP gpuwhy_up 1 when the exporter runs\n# TYPE gpuwhy_up gauge\ngpuwhy_up 1\n";
static unsigned port;

static char *make_page(void *ctx, size_t *len) {
  (void)ctx;
  char *p = malloc(sizeof PAGE);
  if (!p)
    return NULL;
  memcpy(p, PAGE, sizeof PAGE);
  *len = sizeof PAGE - 1;
  return p;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  static struct gw_http *server; /* runs until the process ends */
  char bound[128];
  struct gw_err err = {{0}};
  if (gw_http_start(&server, "127.0.0.1:0", 8, make_page, NULL, bound, sizeof bound, &err) != GW_OK) {
    fprintf(stderr, "fuzz_http: %s\n", err.msg);
    exit(1);
  }
  const char *colon = strrchr(bound, ':');
  port = colon ? (unsigned)atoi(colon + 1) : 0;
  if (!port)
    abort();
  return 0;
}

/* A connection to the server; libFuzzer's timer signals interrupt connect(). */
static int dial(void) {
  for (int attempt = 0; attempt < 100; attempt++) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      abort();
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    /* Reset on close: thousands of connections a second leave no TIME_WAIT behind. */
    struct linger lg = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
      return fd;
    int e = errno;
    close(fd);
    if (e != EINTR && e != EAGAIN && e != EADDRNOTAVAIL) {
      errno = e;
      perror("fuzz_http: connect");
      abort();
    }
  }
  fprintf(stderr, "fuzz_http: cannot connect to the server\n");
  abort();
}

/* Send the bytes, close our side, read the answer (at most cap bytes). */
static size_t exchange(const void *data, size_t size, char *answer, size_t cap) {
  int fd = dial();
  const char *p = data;
  while (size > 0) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; /* the server may hang up on garbage: fine */
    p += n;
    size -= (size_t)n;
  }
  shutdown(fd, SHUT_WR);
  size_t got = 0;
  for (;;) {
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    size_t keep = (size_t)n < cap - got ? (size_t)n : cap - got;
    memcpy(answer + got, buf, keep);
    got += keep;
  }
  close(fd);
  return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstring(data, size);
  char host[64];
  unsigned listen_port = 0;
  if (gw_http_parse_listen(text, host, sizeof host, &listen_port) == 0)
    FUZZ_CHECK(listen_port <= 65535 && fuzz_terminated(host, sizeof host));
  free(text);

  char answer[8192];
  size_t n = exchange(data, size, answer, sizeof answer - 1);
  answer[n] = '\0';
  if (n > 0)
    FUZZ_CHECK(strncmp(answer, "HTTP/1.", 7) == 0); /* whatever it says, it says it in HTTP */

  /* The server still serves. */
  static const char scrape[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  n = exchange(scrape, sizeof scrape - 1, answer, sizeof answer - 1);
  answer[n] = '\0';
  FUZZ_CHECK(strncmp(answer, "HTTP/1.1 200", 12) == 0);
  FUZZ_CHECK(strstr(answer, "gpuwhy_up 1") != NULL);
  return 0;
}
