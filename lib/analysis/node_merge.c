#include "node_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/nccl_transport.h"

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* A host label no earlier node has; "node K" when the run table has none. */
static void node_label(struct gw_recording **recs, int k, char *out, size_t cap) {
  const char *host = recs[k]->hostname;
  int taken = !host[0];
  for (int j = 0; j < k && !taken; j++)
    taken = strcmp(recs[j]->hostname, host) == 0;
  if (taken) {
    /* the label is cut when the host name is long: it only tells nodes apart */
    int n = snprintf(out, cap, "%.*s%snode %d", 96, host, host[0] ? " " : "", k);
    (void)n;
  } else
    gw_strlcpy(out, host, cap);
}

struct gw_recording *gw_recording_merge_nodes(struct gw_recording **recs, int n) {
  struct gw_recording *m = recs[0];
  if (n <= 1)
    return m;
  /* the first recording becomes the merged one; the others give their GPUs, events and logs */
  int total_gpus = 0;
  size_t total_events = 0, total_windows = 0, total_flops = 0;
  for (int k = 0; k < n; k++) {
    total_gpus += recs[k]->ngpus;
    total_events += recs[k]->nevents;
    total_windows += recs[k]->nwindows;
    total_flops += recs[k]->nstep_flops;
  }
  /* every node's counted steps, pids and ranks as they are, tagged with the node so MFU stays per GPU;
   * their steady step times were taken from each node's own step table when it was loaded */
  struct gw_step_flops *flops = gw_xcalloc(total_flops + 1, sizeof *flops);
  size_t nf = 0;
  struct gw_gpu_series *gpus = gw_xcalloc((size_t)total_gpus + 1, sizeof *gpus);
  struct gw_event_row *events = gw_xcalloc(total_events + 1, sizeof *events);
  struct gw_trace_window *windows = gw_xcalloc(total_windows + 1, sizeof *windows);
  char label[128];
  int ng = 0, offset = 0;
  size_t ne = 0, nw = 0;
  size_t plen = 0;
  char path[sizeof m->path];
  path[0] = '\0';
  for (int k = 0; k < n; k++) {
    struct gw_recording *r = recs[k];
    node_label(recs, k, label, sizeof label);
    int max_id = -1;
    for (int i = 0; i < r->ngpus; i++) {
      struct gw_gpu_series *g = &gpus[ng++];
      *g = r->gpus[i];
      if (g->gpu > max_id)
        max_id = g->gpu;
      g->node = k;
      g->node_gpu = r->gpus[i].gpu;
      g->gpu = offset + r->gpus[i].gpu;
      gw_strlcpy(g->host, label, sizeof g->host);
    }
    if (k > 0) /* the events' messages move with them */
      gw_text_pool_move(&m->texts, &r->texts);
    for (size_t e = 0; e < r->nevents; e++) {
      events[ne] = r->events[e];
      if (events[ne].gpu >= 0)
        events[ne].gpu += offset;
      ne++;
    }
    for (size_t w = 0; w < r->nwindows; w++) {
      windows[nw] = r->windows[w];
      windows[nw++].node = k;
    }
    for (size_t f = 0; f < r->nstep_flops; f++) {
      flops[nf] = r->step_flops[f];
      flops[nf++].node = k;
    }
    offset += max_id + 1;
    if (r->started_ns && (!m->started_ns || r->started_ns < m->started_ns))
      m->started_ns = r->started_ns;
    if (r->ended_ns > m->ended_ns)
      m->ended_ns = r->ended_ns;
    m->has_timeline |= r->has_timeline;
    m->timeline_sampled |= r->timeline_sampled;
    if (k > 0 && r->nccl) {
      for (int i = 0; i < r->nccl->nranks_seen; i++)
        r->nccl->ranks[i].node = k;
      gw_nccl_summary_merge(m->nccl, r->nccl);
    }
    int w = snprintf(path + plen, sizeof path - plen, "%s%s", k ? " + " : "", base_name(r->path));
    if (w > 0)
      plen = (size_t)w < sizeof path - plen ? plen + (size_t)w : sizeof path - 1;
  }
  /* the series' arrays moved into gpus: free only the shells of the others */
  free(m->gpus);
  free(m->events);
  free(m->windows);
  free(m->step_flops);
  for (int k = 1; k < n; k++) {
    struct gw_recording *r = recs[k];
    free(r->gpus);
    r->gpus = NULL;
    r->ngpus = 0;
    gw_recording_free(r);
  }
  m->gpus = gpus;
  m->ngpus = ng;
  m->events = events;
  m->nevents = ne;
  m->windows = windows;
  m->nwindows = nw;
  m->step_flops = flops;
  m->nstep_flops = nf;
  m->nnodes = n;
  gw_strlcpy(m->path, path, sizeof m->path);
  return m;
}
