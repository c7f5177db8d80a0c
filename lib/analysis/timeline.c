#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int cmp_start(const void *a, const void *b) {
  const struct gw_interval *x = a, *y = b;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

size_t gw_interval_union(struct gw_interval *iv, size_t n) {
  if (n == 0)
    return 0;
  qsort(iv, n, sizeof *iv, cmp_start);
  size_t out = 0;
  for (size_t i = 1; i < n; i++) {
    if (iv[i].start_ns <= iv[out].end_ns) {
      if (iv[i].end_ns > iv[out].end_ns)
        iv[out].end_ns = iv[i].end_ns;
    } else {
      iv[++out] = iv[i];
    }
  }
  return out + 1;
}

int64_t gw_interval_total_ns(const struct gw_interval *m, size_t n, int64_t t0, int64_t t1) {
  int64_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t a = m[i].start_ns > t0 ? m[i].start_ns : t0;
    int64_t b = m[i].end_ns < t1 ? m[i].end_ns : t1;
    if (b > a)
      sum += b - a;
  }
  return sum;
}

int64_t gw_interval_uncovered_ns(const struct gw_interval *a, size_t na, const struct gw_interval *b, size_t nb) {
  int64_t sum = 0;
  size_t j = 0;
  for (size_t i = 0; i < na; i++) {
    int64_t len = a[i].end_ns - a[i].start_ns;
    while (j < nb && b[j].end_ns <= a[i].start_ns)
      j++;
    /* Both lists are disjoint and sorted: walk b's overlaps with a[i]. */
    for (size_t k = j; k < nb && b[k].start_ns < a[i].end_ns; k++) {
      int64_t lo = b[k].start_ns > a[i].start_ns ? b[k].start_ns : a[i].start_ns;
      int64_t hi = b[k].end_ns < a[i].end_ns ? b[k].end_ns : a[i].end_ns;
      if (hi > lo)
        len -= hi - lo;
    }
    sum += len;
  }
  return sum;
}

/* Does some h2d copy start at or just before `at` (within slack)? */
static int copy_starts_near(const struct gw_interval *h2d, size_t n, int64_t gap_start, int64_t at) {
  /* A gap that ends in an H2D copy: the GPU waited for the host to hand over data. */
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (h2d[mid].start_ns < gap_start)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && h2d[lo].start_ns <= at;
}

/* memcpy with a NULL source is undefined even for 0 bytes. */
static void copy_intervals(struct gw_interval *dst, const struct gw_interval *src, size_t n) {
  if (n)
    memcpy(dst, src, n * sizeof *dst);
}

/* The longest stretch of [a, b) with no host CUDA call in it (api merged and
 * sorted). */
static int64_t longest_quiet_ns(const struct gw_interval *api, size_t napi, int64_t a, int64_t b) {
  size_t lo = 0, hi = napi;
  while (lo < hi) { /* first call that ends after a */
    size_t mid = (lo + hi) / 2;
    if (api[mid].end_ns <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t quiet = 0, cursor = a;
  for (size_t i = lo; i < napi && api[i].start_ns < b; i++) {
    if (api[i].start_ns - cursor > quiet)
      quiet = api[i].start_ns - cursor;
    if (api[i].end_ns > cursor)
      cursor = api[i].end_ns;
  }
  return b - cursor > quiet ? b - cursor : quiet;
}

void gw_timeline_split(struct gw_interval *compute, size_t ncompute, struct gw_interval *nccl, size_t nnccl,
                       struct gw_interval *h2d, size_t nh2d, struct gw_interval *other, size_t nother,
                       struct gw_interval *api, size_t napi, int64_t t0, int64_t t1, int64_t launch_gap_max_ns,
                       int64_t host_quiet_max_ns, struct gw_gap_split *out) {
  memset(out, 0, sizeof *out);
  if (t1 <= t0)
    return;
  ncompute = gw_interval_union(compute, ncompute);
  nnccl = gw_interval_union(nccl, nnccl);
  nh2d = gw_interval_union(h2d, nh2d);
  nother = gw_interval_union(other, nother);
  napi = gw_interval_union(api, napi);

  /* Busy = compute U copies other than host-to-device. A host-to-device copy
   * with no kernel beside it is the GPU waiting for its input (seed 2.1: a
   * synchronous pageable copy blocks both sides), so that part is idle: input.
   * NCCL time outside all of these is communication. */
  size_t nall = ncompute + nother;
  struct gw_interval *all = gw_xcalloc(nall + nh2d + nnccl + 1, sizeof *all);
  copy_intervals(all, compute, ncompute);
  copy_intervals(all + ncompute, other, nother);
  size_t nbusy = gw_interval_union(all, nall);
  out->busy_ns = gw_interval_total_ns(all, nbusy, t0, t1);
  out->idle_input_ns = gw_interval_uncovered_ns(h2d, nh2d, all, nbusy);
  copy_intervals(all + nbusy, h2d, nh2d);
  nbusy = gw_interval_union(all, nbusy + nh2d);
  out->comm_ns = gw_interval_uncovered_ns(nccl, nnccl, all, nbusy);

  /* Gaps are the holes of (busy U nccl) inside [t0, t1). */
  copy_intervals(all + nbusy, nccl, nnccl);
  size_t nany = gw_interval_union(all, nbusy + nnccl);
  int64_t cursor = t0;
  for (size_t i = 0; i <= nany; i++) {
    int64_t next = i < nany ? all[i].start_ns : t1;
    if (next > t1)
      next = t1;
    if (next > cursor) {
      int64_t gap = next - cursor;
      if (i < nany && copy_starts_near(h2d, nh2d, cursor, next))
        out->idle_input_ns += gap;
      else if (gap <= launch_gap_max_ns && i < nany)
        out->idle_launch_ns += gap;
      else if (i < nany && napi > 0 && longest_quiet_ns(api, napi, cursor, next) <= host_quiet_max_ns) {
        /* The host kept calling CUDA all through the gap: the GPU waited
         * for it to issue the next kernel (launch and framework overhead). */
        out->idle_launch_ns += gap;
        out->host_issue_ns += gap;
      } else {
        out->idle_other_ns += gap;
        out->long_gaps++;
      }
    }
    if (i < nany && all[i].end_ns > cursor)
      cursor = all[i].end_ns;
    if (cursor >= t1)
      break;
  }
  free(all);
}
