#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int cmp_start(const void *a, const void *b) {
  const struct gw_interval *x = a, *y = b;
  int c = gw_cmp_i64(x->start_ns, y->start_ns);
  return c ? c : gw_cmp_i64(x->end_ns, y->end_ns);
}

size_t gw_interval_union(struct gw_interval *iv, size_t n) {
  if (n == 0)
    return 0;
  /* traces arrive in start order: a linear check spares the sort (and the same order comes out) */
  size_t sorted_to = 1;
  while (sorted_to < n && cmp_start(&iv[sorted_to - 1], &iv[sorted_to]) <= 0)
    sorted_to++;
  if (sorted_to < n)
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

/* The index of the first interval of a merged, sorted list whose start (or
 * end, with by_end; merged lists have sorted ends too) is past t: beyond it
 * with strict, at or beyond it otherwise. */
static size_t first_past(const struct gw_interval *iv, size_t n, int64_t t, int by_end, int strict) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int64_t v = by_end ? iv[mid].end_ns : iv[mid].start_ns;
    if (strict ? v <= t : v < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int gw_interval_holds(const struct gw_interval *merged, size_t n, int64_t t) {
  size_t i = first_past(merged, n, t, 1, 1); /* the first interval that ends after t */
  return i < n && merged[i].start_ns <= t;
}

/* Does some h2d copy start at or just before `at` (within slack)? A gap that
 * ends in an H2D copy: the GPU waited for the host to hand over data. */
static int copy_starts_near(const struct gw_interval *h2d, size_t n, int64_t gap_start, int64_t at) {
  size_t i = first_past(h2d, n, gap_start, 0, 0);
  return i < n && h2d[i].start_ns <= at;
}

/* memcpy with a NULL source is undefined even for 0 bytes. */
static void copy_intervals(struct gw_interval *dst, const struct gw_interval *src, size_t n) {
  if (n)
    memcpy(dst, src, n * sizeof *dst);
}

/* The longest stretch of [a, b) with no host CUDA call in it (api merged and
 * sorted). */
static int64_t longest_quiet_ns(const struct gw_interval *api, size_t napi, int64_t a, int64_t b) {
  int64_t quiet = 0, cursor = a;
  for (size_t i = first_past(api, napi, a, 1, 1); i < napi && api[i].start_ns < b; i++) {
    if (api[i].start_ns - cursor > quiet)
      quiet = api[i].start_ns - cursor;
    if (api[i].end_ns > cursor)
      cursor = api[i].end_ns;
  }
  return b - cursor > quiet ? b - cursor : quiet;
}

/* Was the host waiting in a synchronizing call when the GPU ran dry at
 * gap_start? The last sync that started by then must end no earlier than
 * slack before it. */
static int sync_open_at(const struct gw_interval *syncs, size_t n, int64_t gap_start, int64_t slack_ns) {
  size_t i = first_past(syncs, n, gap_start, 0, 1);
  return i > 0 && syncs[i - 1].end_ns >= gap_start - slack_ns;
}

/* How much of [a, b) the loop spent blocked in the DataLoader: the waits
 * that can overlap it (merged and sorted, found by search) summed over it. */
static int64_t waited_ns(const struct gw_interval *waits, size_t n, int64_t a, int64_t b) {
  size_t from = first_past(waits, n, a, 1, 1), to = first_past(waits, n, b, 0, 0);
  return to > from ? gw_interval_total_ns(waits + from, to - from, a, b) : 0;
}

int gw_timeline_work_span(const struct gw_timeline_input *in, int64_t *t0, int64_t *t1) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  const struct gw_interval *lists[] = {in->compute, in->nccl, in->h2d, in->other_copies};
  size_t counts[] = {in->ncompute, in->nnccl, in->nh2d, in->nother};
  for (int l = 0; l < 4; l++)
    for (size_t i = 0; i < counts[l]; i++) {
      if (lists[l][i].start_ns < lo)
        lo = lists[l][i].start_ns;
      if (lists[l][i].end_ns > hi)
        hi = lists[l][i].end_ns;
    }
  *t0 = *t1 = 0;
  if (hi < lo)
    return 0;
  *t0 = lo, *t1 = hi;
  return 1;
}

void gw_timeline_split(struct gw_timeline_input *in, struct gw_gap_split *out) {
  memset(out, 0, sizeof *out);
  int64_t t0 = in->t0, t1 = in->t1;
  if (t1 <= t0)
    return;
  size_t ncompute = gw_interval_union(in->compute, in->ncompute);
  size_t nnccl = gw_interval_union(in->nccl, in->nnccl);
  size_t nh2d = gw_interval_union(in->h2d, in->nh2d);
  size_t nother = gw_interval_union(in->other_copies, in->nother);
  size_t napi = gw_interval_union(in->api, in->napi);
  size_t nsyncs = gw_interval_union(in->syncs, in->nsyncs);
  const struct gw_interval *h2d = in->h2d, *api = in->api;

  /* Busy = compute U copies other than host-to-device. A host-to-device copy
   * with no kernel beside it is the GPU waiting for its input (a
   * synchronous pageable copy blocks both sides), so that part is idle: input.
   * NCCL time outside all of these is communication. */
  size_t nall = ncompute + nother;
  struct gw_interval *all = gw_xcalloc(nall + nh2d + nnccl + 1, sizeof *all);
  copy_intervals(all, in->compute, ncompute);
  copy_intervals(all + ncompute, in->other_copies, nother);
  size_t nbusy = gw_interval_union(all, nall);
  out->busy_ns = gw_interval_total_ns(all, nbusy, t0, t1);
  out->idle_input_ns = gw_interval_uncovered_ns(h2d, nh2d, all, nbusy);
  copy_intervals(all + nbusy, h2d, nh2d);
  nbusy = gw_interval_union(all, nbusy + nh2d);
  out->comm_ns = gw_interval_uncovered_ns(in->nccl, nnccl, all, nbusy);

  /* Gaps are the holes of (busy U nccl) inside [t0, t1). */
  copy_intervals(all + nbusy, in->nccl, nnccl);
  size_t nany = gw_interval_union(all, nbusy + nnccl);
  int64_t cursor = t0;
  for (size_t i = 0; i <= nany; i++) {
    int64_t next = i < nany ? all[i].start_ns : t1;
    if (next > t1)
      next = t1;
    if (next > cursor) {
      int64_t gap = next - cursor;
      /* The loop had no batch to launch work for: measured inside the
       * program, it outranks what the gap's shape suggests. The rest of the
       * gap is classified by that shape. */
      int64_t waited = in->nwaits ? waited_ns(in->waits, in->nwaits, cursor, next) : 0;
      out->idle_input_ns += waited;
      out->idle_data_wait_ns += waited;
      int input = i < nany && copy_starts_near(h2d, nh2d, cursor, next);
      int short_gap = gap <= in->launch_gap_max_ns && i < nany;
      /* A longer gap through which the host kept calling CUDA (looked at only when it matters). */
      int host_busy = !input && !short_gap && i < nany && napi > 0 &&
                      longest_quiet_ns(api, napi, cursor, next) <= in->host_quiet_max_ns;
      if (waited >= gap) {
        /* wholly a wait: nothing left to classify */
      } else if (input) {
        out->idle_input_ns += gap - waited;
      } else if ((short_gap || host_busy) && nsyncs > 0 && cursor > t0 &&
                 sync_open_at(in->syncs, nsyncs, cursor, in->sync_slack_ns)) {
        /* The host waited for the GPU to drain its queue, then had to fill
         * it again: what .item() and synchronize() in a step do. A host that went
         * quiet after the sync was busy elsewhere: that gap is not the
         * sync's. */
        out->idle_sync_ns += gap - waited;
        out->sync_gaps++;
      } else if (short_gap) {
        out->idle_launch_ns += gap - waited;
      } else if (host_busy) {
        /* The GPU waited for the host to issue the next kernel (launch and
         * framework overhead). */
        out->idle_launch_ns += gap - waited;
        out->host_issue_ns += gap - waited;
      } else {
        out->idle_other_ns += gap - waited;
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

/* The intervals of src that lie inside [w0, w1] (whole: edge ones would cut
 * gaps short), or that overlap it with overlap; returns how many went to dst. */
static size_t inside_window(struct gw_interval *dst, const struct gw_interval *src, size_t n, int64_t w0, int64_t w1,
                            int overlap) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int in = overlap ? src[i].start_ns < w1 && src[i].end_ns > w0 : src[i].start_ns >= w0 && src[i].end_ns <= w1;
    if (in)
      dst[k++] = src[i];
  }
  return k;
}

int64_t gw_timeline_split_windows(const struct gw_timeline_input *in, const struct gw_interval *windows,
                                  size_t nwindows, struct gw_gap_split *sum) {
  memset(sum, 0, sizeof *sum);
  int64_t span_ns = 0;
  struct gw_timeline_input w = *in;
  w.compute = gw_xcalloc(in->ncompute + 1, sizeof *w.compute);
  w.nccl = gw_xcalloc(in->nnccl + 1, sizeof *w.nccl);
  w.h2d = gw_xcalloc(in->nh2d + 1, sizeof *w.h2d);
  w.other_copies = gw_xcalloc(in->nother + 1, sizeof *w.other_copies);
  w.api = gw_xcalloc(in->napi + 1, sizeof *w.api);
  w.syncs = gw_xcalloc(in->nsyncs + 1, sizeof *w.syncs);
  for (size_t i = 0; i < nwindows; i++) {
    int64_t w0 = windows[i].start_ns, w1 = windows[i].end_ns;
    w.ncompute = inside_window(w.compute, in->compute, in->ncompute, w0, w1, 0);
    w.nnccl = inside_window(w.nccl, in->nccl, in->nnccl, w0, w1, 0);
    w.nh2d = inside_window(w.h2d, in->h2d, in->nh2d, w0, w1, 0);
    w.nother = inside_window(w.other_copies, in->other_copies, in->nother, w0, w1, 0);
    w.napi = inside_window(w.api, in->api, in->napi, w0, w1, 1);
    w.nsyncs = inside_window(w.syncs, in->syncs, in->nsyncs, w0, w1, 1);
    /* the window's span: its first GPU work to its last */
    if (!gw_timeline_work_span(&w, &w.t0, &w.t1) || w.t1 <= w.t0)
      continue;
    struct gw_gap_split sp;
    gw_timeline_split(&w, &sp);
    span_ns += w.t1 - w.t0;
    sum->busy_ns += sp.busy_ns;
    sum->comm_ns += sp.comm_ns;
    sum->idle_input_ns += sp.idle_input_ns;
    sum->idle_data_wait_ns += sp.idle_data_wait_ns;
    sum->idle_sync_ns += sp.idle_sync_ns;
    sum->idle_launch_ns += sp.idle_launch_ns;
    sum->host_issue_ns += sp.host_issue_ns;
    sum->idle_other_ns += sp.idle_other_ns;
    sum->long_gaps += sp.long_gaps;
    sum->sync_gaps += sp.sync_gaps;
  }
  free(w.compute);
  free(w.nccl);
  free(w.h2d);
  free(w.other_copies);
  free(w.api);
  free(w.syncs);
  return span_ns;
}
