#include "serve/serve_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

int gw_http_parse_listen(const char *listen, char *host, size_t cap, unsigned *port) {
  const char *colon;
  if (!listen || !*listen || cap == 0)
    return -1;
  if (listen[0] == '[') {
    const char *close = strchr(listen, ']');
    if (!close || close[1] != ':' || (size_t)(close - listen - 1) >= cap)
      return -1;
    memcpy(host, listen + 1, (size_t)(close - listen - 1));
    host[close - listen - 1] = '\0';
    colon = close + 1;
  } else {
    colon = strrchr(listen, ':');
    if (!colon || (size_t)(colon - listen) >= cap || memchr(listen, ':', (size_t)(colon - listen)))
      return -1; /* an IPv6 address needs brackets */
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
  }
  uint64_t p;
  if (gw_parse_u64(colon + 1, &p) != 0 || p > 65535)
    return -1;
  *port = (unsigned)p;
  return 0;
}

#ifdef GW_HAVE_MICROHTTPD

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct gw_http {
  struct MHD_Daemon *daemon;
  gw_http_page_fn metrics;
  void *ctx;
};

/* The bodies stay English: they go to a remote client (Prometheus, a
 * browser) whose language this server does not know. */
static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *text, const char *allow) {
  struct MHD_Response *r =
      MHD_create_response_from_buffer(strlen(text), (void *)(uintptr_t)text, MHD_RESPMEM_PERSISTENT);
  if (!r)
    return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
  if (allow)
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
  enum MHD_Result ret = MHD_queue_response(conn, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
  (void)version;
  (void)upload_data;
  struct gw_http *h = cls;
  int is_get = strcmp(method, MHD_HTTP_METHOD_GET) == 0, is_head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
  if (!is_get && !is_head) {
    /* a request body is not read: drop it and answer */
    *upload_data_size = 0;
    return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD are served here\n", "GET, HEAD");
  }
  if (*con_cls == NULL) { /* first call: headers only; answer on the next */
    *con_cls = h;
    return MHD_YES;
  }
  if (strcmp(url, "/metrics") == 0) {
    size_t len = 0;
    char *page = h->metrics(h->ctx, &len);
    if (!page)
      return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "the metrics could not be built; see gpuwhy's log\n", NULL);
    struct MHD_Response *r = MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE);
    if (!r) {
      free(page);
      return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
  }
  if (strcmp(url, "/") == 0)
    return reply(conn, MHD_HTTP_OK,
                 "gpuwhy exporter: Prometheus metrics of the GPUs, the host and a live diagnosis at /metrics\n", NULL);
  return reply(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", NULL);
}

gw_status gw_http_start(struct gw_http **out, const char *listen, unsigned max_connections, gw_http_page_fn metrics,
                        void *ctx, char *bound, size_t bound_cap, struct gw_err *err) {
  *out = NULL;
  char host[256];
  unsigned port;
  if (gw_http_parse_listen(listen, host, sizeof host, &port)) {
    gw_err_set(err, _("--listen wants HOST:PORT, [IPV6]:PORT or :PORT, got '%s'"), listen);
    return GW_EINPUT;
  }
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  char portstr[16];
  snprintf(portstr, sizeof portstr, "%u", port);
  int gai = getaddrinfo(host[0] ? host : NULL, portstr, &hints, &ai);
  if (gai != 0 || !ai) {
    gw_err_set(err, _("cannot listen on '%s': %s"), listen, gai ? gai_strerror(gai) : _("no address"));
    return GW_EINPUT;
  }
  struct sockaddr_storage addr;
  memset(&addr, 0, sizeof addr);
  memcpy(&addr, ai->ai_addr, ai->ai_addrlen < sizeof addr ? ai->ai_addrlen : sizeof addr);
  int family = ai->ai_family;
  freeaddrinfo(ai);

  struct gw_http *h = gw_xcalloc(1, sizeof *h);
  h->metrics = metrics;
  h->ctx = ctx;
  /* no MHD_USE_ERROR_LOG: a port scanner must not be able to flood the log */
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
  if (family == AF_INET6)
    flags |= MHD_USE_IPv6;
  h->daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
                               (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT,
                               (unsigned)(max_connections ? max_connections : 16), MHD_OPTION_CONNECTION_TIMEOUT,
                               (unsigned)10, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_END);
  if (!h->daemon) {
    gw_err_set(err, _("cannot listen on %s (in use, or not an address of this machine?)"), listen);
    free(h);
    return GW_EIO;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
  unsigned actual = info ? info->port : port;
  if (bound && bound_cap)
    snprintf(bound, bound_cap, family == AF_INET6 ? "[%s]:%u" : "%s:%u", host[0] ? host : "0.0.0.0", actual);
  *out = h;
  return GW_OK;
}

void gw_http_stop(struct gw_http *h) {
  if (!h)
    return;
  MHD_stop_daemon(h->daemon);
  free(h);
}

#else /* built without libmicrohttpd */

gw_status gw_http_start(struct gw_http **out, const char *listen, unsigned max_connections, gw_http_page_fn metrics,
                        void *ctx, char *bound, size_t bound_cap, struct gw_err *err) {
  (void)listen;
  (void)max_connections;
  (void)metrics;
  (void)ctx;
  (void)bound;
  (void)bound_cap;
  *out = NULL;
  gw_err_set(err, "%s", _("this gpuwhy was built without libmicrohttpd, so it cannot serve HTTP"));
  return GW_ENOTSUP;
}

void gw_http_stop(struct gw_http *h) {
  (void)h;
}

#endif
