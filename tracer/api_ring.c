#include "api_ring.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer_out.h"

/* 32768 records of 48 bytes (1.5 MiB) per thread: the tracer's thread drains
 * every 100 ms, and a launch-bound thread makes about 150000 traced calls a
 * second (the 1 us-kernel storm on the H200), 15000 per drain. */
#define RING_SLOTS 32768u
/* Threads that make traced CUDA calls: a training process has a few (the
 * Python thread, autograd's per-device threads, NCCL's); past this many,
 * calls of new threads are counted as dropped. */
#define MAX_RINGS 64u

struct api_ring {
  _Alignas(64) atomic_uint_fast64_t head; /* written by the owning thread only */
  _Alignas(64) atomic_uint_fast64_t tail; /* written by the drainer only */
  _Alignas(64) struct gw_wire_api slots[RING_SLOTS];
};

static struct api_ring *_Atomic rings[MAX_RINGS];
static atomic_uint rings_claimed;
static atomic_uint_fast64_t dropped;

static _Thread_local struct api_ring *my_ring;
static _Thread_local int my_ring_refused;
static _Thread_local uint32_t my_tid;

uint32_t gwt_api_ring_tid(void) {
  if (!my_tid)
    my_tid = (uint32_t)syscall(SYS_gettid);
  return my_tid;
}

static struct api_ring *ring_of_this_thread(void) {
  if (my_ring || my_ring_refused)
    return my_ring;
  unsigned slot = atomic_fetch_add(&rings_claimed, 1);
  struct api_ring *r = slot < MAX_RINGS ? aligned_alloc(64, sizeof *r) : NULL;
  if (!r) {
    my_ring_refused = 1;
    return NULL;
  }
  atomic_init(&r->head, 0);
  atomic_init(&r->tail, 0);
  atomic_store_explicit(&rings[slot], r, memory_order_release);
  my_ring = r;
  return r;
}

void gwt_api_ring_put(const struct gw_wire_api *rec) {
  struct api_ring *r = ring_of_this_thread();
  if (!r) {
    atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
    return;
  }
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  if (head - atomic_load_explicit(&r->tail, memory_order_acquire) >= RING_SLOTS) {
    atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
    return;
  }
  r->slots[head % RING_SLOTS] = *rec;
  atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

uint64_t gwt_api_ring_drain_locked(void) {
  unsigned n = atomic_load(&rings_claimed);
  for (unsigned i = 0; i < n && i < MAX_RINGS; i++) {
    struct api_ring *r = atomic_load_explicit(&rings[i], memory_order_acquire);
    if (!r)
      continue; /* claimed, not yet published (or its allocation failed) */
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    for (; tail != head; tail++)
      gwt_out_put_locked(&r->slots[tail % RING_SLOTS], sizeof r->slots[0]);
    atomic_store_explicit(&r->tail, tail, memory_order_release);
  }
  return atomic_exchange(&dropped, 0);
}
