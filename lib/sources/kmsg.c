/* Kernel-log source. Reads /dev/kmsg (one record per read) or, for tests, a
 * regular file of records (one per line), and turns NVRM driver lines into
 * events: "xid" for Xid errors with the table's meaning attached, "nvrm" for
 * the driver's other messages, "note" when records were lost or skipped. */
#include "kmsg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/i18n.h"

/* Largest record kept: the kernel's own limit for one extended record. */
#define KMSG_RECORD_MAX 8192
#define KMSG_FILE_CHUNK 65536
/* The kernel advances past a record too large for the read buffer; stop
 * anyway after this many in a row, in case an older kernel does not. */
#define KMSG_MAX_EINVAL_IN_ROW 64

struct gw_kmsg {
  int fd;
  int is_char_device;      /* 1: each read() is one record; 0: split on '\n' */
  int64_t mono_to_real_ns; /* added to record time, taken once at open */
  char path[4096];
  char *record;        /* KMSG_RECORD_MAX + 1 bytes */
  size_t record_len;   /* file mode: bytes of the line being assembled */
  int record_overlong; /* file mode: the current line passed the cap */
  uint64_t line_no;    /* file mode: 1-based number of the line being assembled */
  uint64_t last_seq;   /* last good record, to place messages about bad ones */
  int have_last_seq;
  char *chunk; /* file mode read buffer */
};

/* What one poll saw besides events: reported as one note each at the end. */
struct poll_stats {
  int events;
  int records_lost;
  int overlong;
  int malformed;
  char first_malformed[300];
};

/* ---------- small text helpers ---------- */

static const char *skip_spaces(const char *p) {
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

static int hex_digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* 1 when s starts with a "\xNN" escape; *byte gets its value. */
static int escaped_byte_at(const char *s, unsigned *byte) {
  if (s[0] != '\\' || s[1] != 'x')
    return 0;
  int hi = hex_digit_value(s[2]);
  if (hi < 0)
    return 0;
  int lo = hex_digit_value(s[3]);
  if (lo < 0)
    return 0;
  *byte = (unsigned)(hi * 16 + lo);
  return 1;
}

static int utf8_sequence_length(unsigned lead) {
  if (lead >= 0xC2 && lead <= 0xDF)
    return 2;
  if (lead >= 0xE0 && lead <= 0xEF)
    return 3;
  if (lead >= 0xF0 && lead <= 0xF4)
    return 4;
  return 0;
}

/* The kernel escapes control bytes, bytes >= 0x7f and '\' as \xNN. Decode
 * printable ASCII and whole UTF-8 characters (process names can be UTF-8);
 * leave control bytes and broken sequences escaped, so the text stays one
 * printable line. Decoding only shrinks the text, so it works in place. */
static void unescape_in_place(char *text) {
  char *w = text;
  const char *r = text;
  while (*r) {
    unsigned byte;
    if (escaped_byte_at(r, &byte)) {
      if (byte >= 0x20 && byte < 0x7f) {
        *w++ = (char)byte;
        r += 4;
        continue;
      }
      int n = utf8_sequence_length(byte);
      if (n > 0) {
        unsigned bytes[4] = {byte, 0, 0, 0};
        int whole = 1;
        for (int i = 1; i < n && whole; i++)
          whole = escaped_byte_at(r + 4 * i, &bytes[i]) && (bytes[i] & 0xC0) == 0x80;
        if (whole) {
          for (int i = 0; i < n; i++)
            *w++ = (char)bytes[i];
          r += 4 * n;
          continue;
        }
      }
    }
    *w++ = *r++;
  }
  *w = '\0';
}

/* A decimal field of the record header: digits only, no sign or spaces. */
static int parse_decimal_field(const char *s, uint64_t *out) {
  if (!isdigit((unsigned char)s[0]))
    return -1;
  return gw_parse_u64(s, out);
}

/* ---------- record parser ---------- */

int gw_kmsg_parse_record(char *raw, size_t len, struct gw_kmsg_record *out, struct gw_err *err) {
  if (!raw || !out) {
    gw_err_set(err, "kmsg record: no buffer given");
    return -1;
  }
  /* Continuation lines (" KEY=value") follow the first '\n'; cut them. A NUL
   * inside the bytes also ends the record: the kernel never sends one. */
  size_t end = 0;
  while (end < len && raw[end] != '\n' && raw[end] != '\0')
    end++;
  raw[end] = '\0';
  if (end == 0) {
    gw_err_set(err, "kmsg record: empty, expected "
                    "'priority,sequence,timestamp_us,flags;message'");
    return -1;
  }
  char *semicolon = strchr(raw, ';');
  if (!semicolon) {
    gw_err_set(err, "kmsg record: no ';' between the header and the message, expected "
                    "'priority,sequence,timestamp_us,flags;message'");
    return -1;
  }
  *semicolon = '\0';

  /* Header: prio,seq,ts_us,flags and maybe more fields the kernel may add. */
  static const char *const field_names[3] = {"priority", "sequence number", "timestamp (us)"};
  uint64_t values[3] = {0, 0, 0};
  char *field = raw;
  for (int i = 0; i < 3; i++) {
    char *comma = strchr(field, ',');
    if (!comma && i < 2) {
      gw_err_set(err,
                 "kmsg record: header has %d field%s, expected at least 3 "
                 "(priority,sequence,timestamp_us)",
                 i + 1, i == 0 ? "" : "s");
      return -1;
    }
    if (comma)
      *comma = '\0';
    if (parse_decimal_field(field, &values[i]) != 0) {
      gw_err_set(err, "kmsg record: %s field is '%.40s', expected a decimal number", field_names[i], field);
      return -1;
    }
    field = comma ? comma + 1 : field + strlen(field);
  }
  /* Over a century of uptime is damage; the bound also leaves room to add
   * the boot time when the record becomes an event (ns since 1970). */
  if (values[2] > (uint64_t)(INT64_MAX / 2000)) {
    gw_err_set(err, "kmsg record: timestamp %llu us is out of range", (unsigned long long)values[2]);
    return -1;
  }
  out->priority = (int)(values[0] & 7);
  out->seq = values[1];
  out->t_mono_us = values[2];
  out->message = semicolon + 1;
  unescape_in_place(semicolon + 1);
  return 0;
}

/* ---------- Xid line parser ---------- */

/* Copy [begin, end) into out, NUL-terminated, truncating to cap. */
static void copy_span(char *out, size_t cap, const char *begin, const char *end) {
  size_t n = (size_t)(end - begin);
  if (n >= cap)
    n = cap - 1;
  memcpy(out, begin, n);
  out[n] = '\0';
}

/* A small non-negative decimal in [begin, end), or -1. */
static int parse_small_number(const char *begin, const char *end) {
  if (begin == end || end - begin > 9)
    return -1;
  int v = 0;
  for (const char *p = begin; p < end; p++) {
    if (!isdigit((unsigned char)*p))
      return -1;
    v = v * 10 + (*p - '0');
  }
  return v;
}

/* Inside "(PCI:0000:10:1c GPU-I:01 GPU-CI:00)": the address, then MIG ids. */
static void parse_xid_location(const char *begin, const char *end, struct gw_xid *x, int *gpu_instance,
                               int *compute_instance) {
  const char *p = begin;
  int first = 1;
  while (p < end) {
    while (p < end && *p == ' ')
      p++;
    const char *token = p;
    while (p < end && *p != ' ')
      p++;
    if (token == p)
      break;
    if (first) {
      if (p - token > 4 && strncmp(token, "PCI:", 4) == 0)
        token += 4;
      copy_span(x->pci, sizeof x->pci, token, p);
      first = 0;
    } else if (p - token > 6 && strncmp(token, "GPU-I:", 6) == 0) {
      *gpu_instance = parse_small_number(token + 6, p);
    } else if (p - token > 7 && strncmp(token, "GPU-CI:", 7) == 0) {
      *compute_instance = parse_small_number(token + 7, p);
    }
  }
}

/* "pid=1896" or "pid='<unknown>'": the number, or 0 when unknown. */
static int parse_pid_value(const char *begin, const char *end) {
  int pid = parse_small_number(begin, end);
  return pid > 0 ? pid : 0;
}

/* The full parser; gw_parse_xid_line drops the MIG instance ids, which
 * gw_xid has no room for. */
static int parse_xid_line_full(const char *message, struct gw_xid *out, int *gpu_instance, int *compute_instance) {
  memset(out, 0, sizeof *out);
  out->xid = -1;
  out->detail = "";
  *gpu_instance = -1;
  *compute_instance = -1;
  if (!message)
    return -1;
  const char *p = skip_spaces(message);
  if (strncmp(p, "NVRM:", 5) != 0)
    return -1;
  p = skip_spaces(p + 5);
  out->detail = p; /* for an NVRM line that is not an Xid */

  if (strncmp(p, "Xid", 3) != 0)
    return 0;
  const char *q = skip_spaces(p + 3);
  if (*q != '(')
    return 0;
  const char *close = strchr(q + 1, ')');
  if (!close || close[1] != ':')
    return 0;
  const char *number = skip_spaces(close + 2);
  const char *number_end = number;
  while (isdigit((unsigned char)*number_end))
    number_end++;
  int code = parse_small_number(number, number_end);
  if (code < 0 || (*number_end != ',' && *number_end != '\0' && *number_end != ' '))
    return 0;

  struct gw_xid x;
  memset(&x, 0, sizeof x);
  int gi = -1, ci = -1;
  parse_xid_location(q + 1, close, &x, &gi, &ci);
  x.xid = code;

  /* Optional "pid=..., name=..." before the free text. */
  q = number_end;
  if (*q == ',')
    q++;
  for (;;) {
    q = skip_spaces(q);
    int is_pid = strncmp(q, "pid=", 4) == 0;
    int is_name = strncmp(q, "name=", 5) == 0;
    if (!is_pid && !is_name)
      break;
    const char *value = q + (is_pid ? 4 : 5);
    const char *value_end = strchr(value, ',');
    if (!value_end)
      value_end = value + strlen(value);
    if (is_pid) {
      x.pid = parse_pid_value(value, value_end);
    } else if (!(value_end - value == 9 && strncmp(value, "<unknown>", 9) == 0) &&
               !(value_end - value == 11 && strncmp(value, "'<unknown>'", 11) == 0)) {
      copy_span(x.name, sizeof x.name, value, value_end);
    }
    q = *value_end == ',' ? value_end + 1 : value_end;
  }
  x.detail = q;
  *out = x;
  *gpu_instance = gi;
  *compute_instance = ci;
  return 1;
}

int gw_parse_xid_line(const char *message, struct gw_xid *out) {
  int gpu_instance, compute_instance;
  return parse_xid_line_full(message, out, &gpu_instance, &compute_instance);
}

/* ---------- events ---------- */

struct text_builder {
  char *buf;
  size_t cap, len;
};

static void text_append(struct text_builder *b, const char *fmt, ...) GW_PRINTF(2, 3);
static void text_append(struct text_builder *b, const char *fmt, ...) {
  if (b->len + 1 >= b->cap)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  b->len += (size_t)n;
  if (b->len >= b->cap)
    b->len = b->cap - 1;
}

/* Length of s without trailing spaces, capped so the meaning still fits. */
static int detail_length(const char *s, int cap) {
  size_t n = strlen(s);
  while (n > 0 && s[n - 1] == ' ')
    n--;
  return n > (size_t)cap ? cap : (int)n;
}

/* "PCI 0000:10:1c: <detail> [process, MIG] — Xid 63 MNEMONIC: meaning". The
 * address comes first so the recorder can map it to an NVML index. */
static void format_xid_message(char *out, size_t cap, const struct gw_xid *x, int gpu_instance, int compute_instance) {
  struct text_builder b = {out, cap, 0};
  out[0] = '\0';
  text_append(&b, "PCI %s: ", x->pci[0] ? x->pci : "unknown");
  int n = detail_length(x->detail, 220);
  if (n > 0)
    text_append(&b, "%.*s", n, x->detail);
  else
    text_append(&b, "(no detail)");
  if (x->name[0] || gpu_instance >= 0) {
    text_append(&b, " [");
    if (x->name[0])
      text_append(&b, "process %s%s", x->name, gpu_instance >= 0 ? ", " : "");
    if (gpu_instance >= 0)
      text_append(&b, "MIG GPU instance %d", gpu_instance);
    if (gpu_instance >= 0 && compute_instance >= 0)
      text_append(&b, " compute instance %d", compute_instance);
    text_append(&b, "]");
  }
  const struct gw_xid_info *info = gw_xid_lookup(x->xid);
  if (info)
    text_append(&b, " \xE2\x80\x94 Xid %d %s: %s", x->xid, info->mnemonic, info->meaning);
  else
    text_append(&b,
                " \xE2\x80\x94 Xid %d is not in gpuwhy's table; look it up in "
                "NVIDIA's Xid catalog",
                x->xid);
}

static void emit_note(const struct gw_event_sink *sink, struct poll_stats *stats, const char *fmt, ...) GW_PRINTF(3, 4);
static void emit_note(const struct gw_event_sink *sink, struct poll_stats *stats, const char *fmt, ...) {
  struct gw_event ev;
  memset(&ev, 0, sizeof ev);
  ev.t_ns = gw_now_realtime_ns();
  ev.kind = "note";
  ev.gpu = -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ev.message, sizeof ev.message, fmt, ap);
  va_end(ap);
  gw_emit(sink, &ev);
  stats->events++;
}

/* Where a bad record sits, for messages: a line of a file, or the device
 * position after the last good record. */
static void describe_position(const struct gw_kmsg *k, char *out, size_t cap) {
  if (!k->is_char_device)
    snprintf(out, cap, "%s line %llu", k->path, (unsigned long long)k->line_no);
  else if (k->have_last_seq)
    snprintf(out, cap, "%s record after sequence %llu", k->path, (unsigned long long)k->last_seq);
  else
    snprintf(out, cap, "%s first record read", k->path);
}

/* One complete record in k->record (len bytes, room for one more). */
static void handle_record(struct gw_kmsg *k, size_t len, const struct gw_event_sink *sink, struct poll_stats *stats) {
  struct gw_kmsg_record rec;
  struct gw_err err;
  err.msg[0] = '\0';
  if (gw_kmsg_parse_record(k->record, len, &rec, &err) != 0) {
    if (stats->malformed++ == 0) {
      char where[4200];
      describe_position(k, where, sizeof where);
      snprintf(stats->first_malformed, sizeof stats->first_malformed, "%.160s: %.130s", where, err.msg);
    }
    return;
  }
  k->last_seq = rec.seq;
  k->have_last_seq = 1;

  struct gw_xid x;
  int gpu_instance, compute_instance;
  int kind = parse_xid_line_full(rec.message, &x, &gpu_instance, &compute_instance);
  if (kind < 0)
    return;
  struct gw_event ev;
  memset(&ev, 0, sizeof ev);
  ev.t_ns = (int64_t)rec.t_mono_us * 1000 + k->mono_to_real_ns;
  ev.gpu = -1; /* the recorder maps the PCI address to a GPU */
  if (kind == 1) {
    ev.kind = "xid";
    ev.code = x.xid;
    ev.pid = x.pid;
    format_xid_message(ev.message, sizeof ev.message, &x, gpu_instance, compute_instance);
  } else {
    ev.kind = "nvrm";
    gw_strlcpy(ev.message, x.detail, sizeof ev.message);
  }
  gw_emit(sink, &ev);
  stats->events++;
}

/* ---------- open / close ---------- */

gw_status gw_kmsg_open(struct gw_kmsg **out, const char *root, int from_boot, struct gw_err *err) {
  if (!out) {
    gw_err_set(err, "gw_kmsg_open: no result pointer");
    return GW_ERR;
  }
  *out = NULL;
  char path[4096];
  if (gw_path_at(root, "/dev/kmsg", path, sizeof path) != 0) {
    gw_err_set(err, "kernel log: root directory path is too long");
    return GW_EINPUT;
  }
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == EACCES || e == EPERM) {
      gw_err_set(err, "cannot read %s (permission denied; kernel.dmesg_restrict?)", path);
      return GW_ENOTSUP;
    }
    if (e == ENOENT) {
      gw_err_set(err, "cannot read %s: it does not exist", path);
      return GW_ENOTSUP;
    }
    gw_err_set(err, "cannot open %s: %s", path, gw_strerror(e));
    return GW_EIO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    gw_err_set(err, "cannot read %s: %s", path, gw_strerror(errno));
    close(fd);
    return GW_EIO;
  }
  if (S_ISDIR(st.st_mode)) {
    gw_err_set(err,
               "cannot read %s: it is a directory, expected the kernel log "
               "device or a file of records",
               path);
    close(fd);
    return GW_EINPUT;
  }
  struct gw_kmsg *k = gw_xcalloc(1, sizeof *k);
  k->fd = fd;
  k->is_char_device = S_ISCHR(st.st_mode);
  k->mono_to_real_ns = gw_monotonic_to_realtime_offset_ns();
  gw_strlcpy(k->path, path, sizeof k->path);
  k->record = gw_xcalloc(KMSG_RECORD_MAX + 1, 1);
  k->line_no = 1;
  if (!k->is_char_device)
    k->chunk = gw_xcalloc(KMSG_FILE_CHUNK, 1);
  /* A pipe cannot seek; it has no history to skip either. */
  if (!from_boot && lseek(fd, 0, SEEK_END) < 0 && errno != ESPIPE) {
    gw_err_set(err, "cannot skip the history of %s: %s", path, gw_strerror(errno));
    gw_kmsg_close(k);
    return GW_EIO;
  }
  *out = k;
  return GW_OK;
}

void gw_kmsg_close(struct gw_kmsg *k) {
  if (!k)
    return;
  if (k->fd >= 0)
    close(k->fd);
  free(k->record);
  free(k->chunk);
  free(k);
}

/* ---------- poll ---------- */

/* File mode: the bytes of one chunk, split into lines; a line starting with a
 * space continues the record before it and is dropped like the kernel's
 * KEY=value lines. A partial last line waits for the next poll. */
static void consume_file_bytes(struct gw_kmsg *k, const char *bytes, size_t n, const struct gw_event_sink *sink,
                               struct poll_stats *stats) {
  while (n > 0) {
    const char *newline = memchr(bytes, '\n', n);
    size_t take = newline ? (size_t)(newline - bytes) : n;
    if (!k->record_overlong) {
      if (k->record_len + take > KMSG_RECORD_MAX) {
        k->record_overlong = 1;
      } else {
        memcpy(k->record + k->record_len, bytes, take);
        k->record_len += take;
      }
    }
    if (!newline)
      return;
    if (k->record_overlong)
      stats->overlong++;
    else if (k->record_len > 0 && k->record[0] != ' ')
      handle_record(k, k->record_len, sink, stats);
    k->record_len = 0;
    k->record_overlong = 0;
    k->line_no++;
    bytes = newline + 1;
    n -= take + 1;
  }
}

/* Reads until drained: 0 then, -1 on an error. A char device gives one
 * record per read(); a file gives chunks, split into lines here. */
static int poll_reads(struct gw_kmsg *k, const struct gw_event_sink *sink, struct poll_stats *stats) {
  int einval_in_row = 0;
  for (;;) {
    ssize_t n = k->is_char_device ? read(k->fd, k->record, KMSG_RECORD_MAX) : read(k->fd, k->chunk, KMSG_FILE_CHUNK);
    if (n > 0) {
      einval_in_row = 0;
      if (k->is_char_device)
        handle_record(k, (size_t)n, sink, stats);
      else
        consume_file_bytes(k, k->chunk, (size_t)n, sink, stats);
      continue;
    }
    if (n == 0)
      return 0;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      return 0;
    if (!k->is_char_device)
      return -1;
    if (errno == EPIPE) { /* overwritten before we read them; the next read resyncs */
      stats->records_lost = 1;
      continue;
    }
    if (errno == EINVAL) { /* record larger than the buffer; the kernel moves past it */
      stats->overlong++;
      if (++einval_in_row >= KMSG_MAX_EINVAL_IN_ROW)
        return 0;
      continue;
    }
    return -1;
  }
}

int gw_kmsg_poll(struct gw_kmsg *k, const struct gw_event_sink *events) {
  if (!k)
    return -1;
  struct poll_stats stats;
  memset(&stats, 0, sizeof stats);
  int rc = poll_reads(k, events, &stats);
  int read_errno = errno;
  if (stats.records_lost)
    emit_note(events, &stats,
              "kernel log: records were overwritten before gpuwhy read them; "
              "NVRM/Xid lines may be "
              "missing from this recording");
  if (stats.overlong)
    emit_note(events, &stats, "kernel log: skipped %d record%s longer than %d bytes in %s", stats.overlong,
              stats.overlong == 1 ? "" : "s", KMSG_RECORD_MAX, k->path);
  if (stats.malformed)
    emit_note(events, &stats, "kernel log: skipped %d malformed record%s; first at %s", stats.malformed,
              stats.malformed == 1 ? "" : "s", stats.first_malformed);
  if (rc != 0) {
    emit_note(events, &stats, "kernel log: reading %s failed: %s", k->path, gw_strerror(read_errno));
    return -1;
  }
  return stats.events;
}
