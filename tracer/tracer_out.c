#include "tracer_out.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wire_encode.h"

/* Records collect here and leave in one write(2) per MiB or per buffer. */
#define STAGING_BYTES (1u << 20)
/* Open addressing over 64-bit name hashes; 3/4 full counts as full. */
#define NAME_SLOTS 16384u

struct name_slot {
  uint64_t hash; /* 0: empty */
  uint32_t id;
};

static pthread_mutex_t out_mutex = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -1;
/* A write failed, or this is a forked child: stop writing, keep the job running. */
static atomic_int out_failed;
static size_t staging_len;
static _Alignas(8) unsigned char staging[STAGING_BYTES];
static struct name_slot name_slots[NAME_SLOTS];
static uint32_t names_used;

int gwt_out_open(const char *dir, const struct gw_wire_file_header *h, char *why, size_t why_cap) {
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/trace-%u.gwt", dir, (unsigned)h->pid);
  if (n < 0 || (size_t)n >= sizeof path) {
    snprintf(why, why_cap, "GPUWHY_TRACE_DIR is too long");
    return -1;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(why, why_cap, "cannot create %s: %s", path, strerror(errno));
    return -1;
  }
  pthread_mutex_lock(&out_mutex);
  out_fd = fd;
  memcpy(staging, h, sizeof *h);
  staging_len = sizeof *h;
  gwt_out_flush_locked();
  pthread_mutex_unlock(&out_mutex);
  return 0;
}

int gwt_out_is_open(void) {
  return out_fd >= 0 && !atomic_load(&out_failed);
}

/* Returns 0 without locking when output is off (forked child, failed disk). */
int gwt_out_lock(void) {
  if (atomic_load(&out_failed))
    return 0;
  pthread_mutex_lock(&out_mutex);
  return 1;
}
void gwt_out_unlock(void) {
  pthread_mutex_unlock(&out_mutex);
}

void gwt_out_flush_locked(void) {
  size_t done = 0;
  while (done < staging_len && out_fd >= 0 && !out_failed) {
    ssize_t n = write(out_fd, staging + done, staging_len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      /* Disk full or gone: drop the trace, never the job. The file may end
       * inside a record, which the reader reports as truncated. */
      atomic_store(&out_failed, 1);
      break;
    }
    done += (size_t)n;
  }
  staging_len = 0;
}

void gwt_out_put_locked(const void *rec, size_t size_bytes) {
  if (out_fd < 0 || out_failed || size_bytes > STAGING_BYTES)
    return;
  if (staging_len + size_bytes > STAGING_BYTES)
    gwt_out_flush_locked();
  memcpy(staging + staging_len, rec, size_bytes);
  staging_len += size_bytes;
}

void gwt_out_put(const void *rec, size_t size_bytes) {
  if (atomic_load(&out_failed))
    return; /* also keeps a forked child off a mutex the parent may hold */
  pthread_mutex_lock(&out_mutex);
  gwt_out_put_locked(rec, size_bytes);
  gwt_out_flush_locked();
  pthread_mutex_unlock(&out_mutex);
}

void gwt_out_note(uint64_t t_ns, uint32_t level, const char *fmt, ...) {
  char text[GW_WIRE_NOTE_MAX_BYTES];
  _Alignas(8) unsigned char rec[sizeof(struct gw_wire_note) + GW_WIRE_NOTE_MAX_BYTES];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (len < 0)
    return;
  if ((size_t)len >= sizeof text)
    len = (int)sizeof text - 1;
  size_t n = gw_wire_encode_note(rec, sizeof rec, t_ns, level, text, (size_t)len);
  if (n)
    gwt_out_put(rec, n);
}

uint64_t gwt_name_hash(const char *name, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)name[i];
    h *= 1099511628211ull;
  }
  h ^= len;
  h *= 1099511628211ull;
  return h ? h : 1;
}

uint32_t gwt_name_id_locked(const char *name, int *cut) {
  *cut = 0;
  if (!name)
    return 0;
  size_t len = strnlen(name, GW_WIRE_NAME_MAX_BYTES + 1);
  if (len > GW_WIRE_NAME_MAX_BYTES) {
    len = GW_WIRE_NAME_MAX_BYTES;
    *cut = 1;
  }
  uint64_t h = gwt_name_hash(name, len);
  uint32_t slot = (uint32_t)(h % NAME_SLOTS);
  for (uint32_t probe = 0; probe < NAME_SLOTS; probe++) {
    struct name_slot *s = &name_slots[(slot + probe) % NAME_SLOTS];
    if (s->hash == h)
      return s->id;
    if (s->hash == 0) {
      if (names_used >= NAME_SLOTS / 4 * 3)
        return 0; /* table full: later names stay anonymous */
      _Alignas(8) unsigned char rec[sizeof(struct gw_wire_name) + GW_WIRE_NAME_MAX_BYTES];
      uint32_t id = names_used + 1;
      size_t n = gw_wire_encode_name(rec, sizeof rec, id, name, len);
      if (!n)
        return 0;
      gwt_out_put_locked(rec, n);
      s->hash = h;
      s->id = id;
      names_used++;
      return id;
    }
  }
  return 0;
}

void gwt_out_forget_in_child(void) {
  /* The child shares the file offset and our records would interleave with
   * the parent's; it also has no CUPTI threads. Close quietly. A mutex held
   * by another parent thread at fork time stays locked in the child, so the
   * child must not take it: it just stops writing. */
  atomic_store(&out_failed, 1);
}
