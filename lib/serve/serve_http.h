/* The exporter's HTTP side (libmicrohttpd): GET /metrics answers with the
 * page a callback produces; / names the endpoint; other paths are 404,
 * other methods 405. One internal thread serves every connection, with a
 * cap on open connections, a timeout and a small per-connection memory
 * limit, so a slow or hostile client cannot pile up work. Built without
 * libmicrohttpd (GW_HAVE_MICROHTTPD unset), starting fails with a message. */
#ifndef GW_SERVE_HTTP_H
#define GW_SERVE_HTTP_H

#include <stddef.h>

#include "core/util.h"

struct gw_http;

/* Returns a malloc'd page of *len bytes, or NULL when it cannot be made. */
typedef char *(*gw_http_page_fn)(void *ctx, size_t *len);

/* Parse "HOST:PORT", "[V6ADDR]:PORT" or ":PORT" (all interfaces).
 * host receives "" for all interfaces. 0 on success. */
int gw_http_parse_listen(const char *listen, char *host, size_t cap, unsigned *port);

/* Listen on listen and serve until gw_http_stop. bound receives
 * "HOST:PORT" with the port actually bound (useful with port 0). */
GW_NODISCARD gw_status gw_http_start(struct gw_http **out, const char *listen, unsigned max_connections,
                                     gw_http_page_fn metrics, void *ctx, char *bound, size_t bound_cap,
                                     struct gw_err *err);
void gw_http_stop(struct gw_http *h);

#endif
