/* Pure parsers of the host source: /proc/stat, /proc/<pid>/stat,
 * /proc/diskstats and /proc/pressure/<res>. They read text, never files, so
 * tests and fuzzers can feed them any bytes. Field layouts are those of
 * proc(5) and of Linux's Documentation/admin-guide/iostats.rst (diskstats)
 * and accounting/psi.rst (pressure). */
#include "host.h"

#include <stdio.h>
#include <string.h>

/* Core numbers above this are taken as garbage, not as a huge machine. */
#define GW_MAX_CORE_ID 65535

/* Keep the first problem only: it is the one that explains the rest. */
static void note_first(struct gw_err *err, const char *fmt, ...) GW_PRINTF(2, 3);
static void note_first(struct gw_err *err, const char *fmt, ...) {
  if (!err || err->msg[0])
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
}

static void clear_err(struct gw_err *err) {
  if (err)
    err->msg[0] = '\0';
}

static int is_blank(char c) {
  return c == ' ' || c == '\t';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Next whitespace-separated token in [*pp, end). Newlines count as
 * whitespace so callers can bound the scan to one line or to the text. */
static int next_token(const char **pp, const char *end, const char **tok, size_t *len) {
  const char *p = *pp;
  while (p < end && (is_blank(*p) || *p == '\n'))
    p++;
  if (p >= end || *p == '\0')
    return -1;
  const char *start = p;
  while (p < end && *p && !is_blank(*p) && *p != '\n')
    p++;
  *tok = start;
  *len = (size_t)(p - start);
  *pp = p;
  return 0;
}

static int token_u64(const char *tok, size_t len, uint64_t *out) {
  if (len == 0)
    return -1;
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (!is_digit(tok[i]))
      return -1;
    uint64_t d = (uint64_t)(tok[i] - '0');
    if (v > (UINT64_MAX - d) / 10)
      return -1; /* overflow */
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

static int token_i64(const char *tok, size_t len, int64_t *out) {
  int negative = len > 0 && tok[0] == '-';
  uint64_t mag;
  if (token_u64(tok + negative, len - (size_t)negative, &mag) != 0 || mag > (uint64_t)INT64_MAX)
    return -1;
  *out = negative ? -(int64_t)mag : (int64_t)mag;
  return 0;
}

static int next_u64(const char **pp, const char *end, uint64_t *out) {
  const char *tok;
  size_t len;
  return next_token(pp, end, &tok, &len) == 0 ? token_u64(tok, len, out) : -1;
}

static int next_i64(const char **pp, const char *end, int64_t *out) {
  const char *tok;
  size_t len;
  return next_token(pp, end, &tok, &len) == 0 ? token_i64(tok, len, out) : -1;
}

/* ---- /proc/stat ---- */

/* "user nice system idle iowait irq softirq steal [guest guest_nice]".
 * guest time is already inside user and nice, so it is not read. */
static int parse_cpu_numbers(const char *p, const char *end, struct gw_cpu_ticks *t) {
  struct gw_cpu_ticks parsed;
  uint64_t *const in_line_order[] = {&parsed.user,   &parsed.nice, &parsed.system,  &parsed.idle,
                                     &parsed.iowait, &parsed.irq,  &parsed.softirq, &parsed.steal};
  for (size_t i = 0; i < sizeof in_line_order / sizeof in_line_order[0]; i++)
    if (next_u64(&p, end, in_line_order[i]) != 0)
      return -1; /* *t untouched */
  *t = parsed;
  return 0;
}

/* cores[] is indexed by core number; a core absent from the text (offline)
 * is left all zero. The return value is the highest core number + 1 and may
 * exceed max: then only cores[0..max) were written and the caller should
 * grow its array and parse again. */
int gw_parse_proc_stat(const char *text, struct gw_cpu_ticks *total, struct gw_cpu_ticks *cores, int max,
                       struct gw_err *err) {
  clear_err(err);
  if (!text || !total) {
    gw_err_set(err, "/proc/stat: no text");
    return -1;
  }
  int have_total = 0, ncores = 0, zeroed = 0, line_no = 0;
  const char *line = text;
  while (*line) {
    line_no++;
    const char *nl = strchr(line, '\n');
    /* The cpu lines come first; the long intr line after them is not needed. */
    if (strncmp(line, "cpu", 3) != 0)
      break;
    if (!nl) {
      /* A last line without its newline was cut by a short read. */
      note_first(err, "/proc/stat line %d: cut short, skipped", line_no);
      break;
    }
    const char *p = line + 3;
    if (is_blank(*p)) {
      if (parse_cpu_numbers(p, nl, total) != 0) {
        gw_err_set(err, "/proc/stat line %d: the 'cpu' total needs 8 tick counters", line_no);
        return -1;
      }
      have_total = 1;
    } else {
      const char *num = p;
      while (p < nl && is_digit(*p))
        p++;
      uint64_t core;
      struct gw_cpu_ticks ticks;
      if (p == num || !is_blank(*p) || token_u64(num, (size_t)(p - num), &core) != 0 || core > GW_MAX_CORE_ID) {
        note_first(err, "/proc/stat line %d: '%.*s' is not a cpuN line, skipped", line_no, (int)(p - line), line);
      } else if (parse_cpu_numbers(p, nl, &ticks) != 0) {
        note_first(err, "/proc/stat line %d: cpu%d needs 8 tick counters, skipped", line_no, (int)core);
      } else {
        int c = (int)core;
        if (cores && c < max) {
          /* Zero the gap of offline cores below this one. */
          for (; zeroed < c; zeroed++)
            memset(&cores[zeroed], 0, sizeof cores[zeroed]);
          cores[c] = ticks;
          if (zeroed < c + 1)
            zeroed = c + 1;
        }
        if (c + 1 > ncores)
          ncores = c + 1;
      }
    }
    line = nl + 1;
  }
  if (!have_total) {
    gw_err_set(err, "/proc/stat: no 'cpu' total line (expected 'cpu  user nice "
                    "system idle ...' first)");
    return -1;
  }
  if (cores)
    for (; zeroed < ncores && zeroed < max; zeroed++)
      memset(&cores[zeroed], 0, sizeof cores[zeroed]);
  return ncores;
}

/* ---- /proc/<pid>/stat ---- */

int gw_parse_pid_stat(const char *text, struct gw_pid_stat *out, struct gw_err *err) {
  clear_err(err);
  if (!text || !out) {
    gw_err_set(err, "pid stat: no text");
    return -1;
  }
  memset(out, 0, sizeof *out);
  /* comm sits between the first '(' and the LAST ')': it may hold both. */
  const char *open = strchr(text, '(');
  const char *close = strrchr(text, ')');
  if (!open || !close || close < open) {
    gw_err_set(err, "pid stat: no '(comm)' field");
    return -1;
  }
  int64_t pid;
  const char *p = text;
  if (next_i64(&p, open, &pid) != 0 || pid <= 0 || pid > INT32_MAX) {
    gw_err_set(err, "pid stat: field 1 (pid) is not a positive number");
    return -1;
  }
  out->pid = (int)pid;
  size_t comm_len = (size_t)(close - open - 1);
  if (comm_len >= sizeof out->comm)
    comm_len = sizeof out->comm - 1;
  memcpy(out->comm, open + 1, comm_len);
  out->comm[comm_len] = '\0';

  const char *end = close + strlen(close);
  p = close + 1;
  const char *tok;
  size_t len;
  if (next_token(&p, end, &tok, &len) != 0 || len != 1) {
    gw_err_set(err, "pid stat %d: field 3 (state) missing", out->pid);
    return -1;
  }
  out->state = tok[0];
  /* Fields 4..24; the numbers we keep are named, the rest only checked. */
  for (int field = 4; field <= 24; field++) {
    int64_t v;
    uint64_t u;
    int rc;
    switch (field) {
    case 14:
      rc = next_u64(&p, end, &out->utime_ticks);
      break;
    case 15:
      rc = next_u64(&p, end, &out->stime_ticks);
      break;
    case 22:
      rc = next_u64(&p, end, &out->starttime_ticks);
      break;
    case 9:
    case 23:
      rc = next_u64(&p, end, &u);
      break; /* flags, vsize: unsigned */
    default:
      rc = next_i64(&p, end, &v);
      if (rc != 0)
        break;
      if ((field == 4 || field == 20) && (v < 0 || v > INT32_MAX))
        rc = -1;
      else if (field == 4)
        out->ppid = (int)v;
      else if (field == 20)
        out->num_threads = (int)v;
      else if (field == 24)
        out->rss_pages = v;
      break;
    }
    if (rc != 0) {
      gw_err_set(err, "pid stat %d: field %d is missing or not a number", out->pid, field);
      return -1;
    }
  }
  return 0;
}

/* ---- /proc/diskstats ---- */

static int has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The kernel names partition N of disk D "D" N, or "D" "p" N when D ends in
 * a digit (nvme0n1p1, mmcblk0p2, md0p1). */
static int is_partition_of(const char *name, const char *disk) {
  size_t dl = strlen(disk);
  if (dl == 0 || strncmp(name, disk, dl) != 0)
    return 0;
  const char *rest = name + dl;
  if (is_digit(disk[dl - 1])) {
    if (*rest != 'p')
      return 0;
    rest++;
  }
  if (!*rest)
    return 0;
  for (; *rest; rest++)
    if (!is_digit(*rest))
      return 0;
  return 1;
}

/* One diskstats line into *d. Returns 1 when it holds a device, 0 for a
 * blank line, -1 for a malformed one (noted in err). */
static int parse_disk_line(const char *line, const char *end, int line_no, struct gw_disk_counters *d,
                           struct gw_err *err) {
  const char *p = line;
  const char *tok;
  size_t len;
  uint64_t major, minor, f[15] = {0};
  if (next_token(&p, end, &tok, &len) != 0)
    return 0;
  if (token_u64(tok, len, &major) != 0 || next_u64(&p, end, &minor) != 0 || next_token(&p, end, &tok, &len) != 0) {
    note_first(err, "/proc/diskstats line %d: expected 'major minor name' first, skipped", line_no);
    return -1;
  }
  if (len >= sizeof d->name) {
    note_first(err, "/proc/diskstats line %d: device name longer than %zu bytes, skipped", line_no, sizeof d->name - 1);
    return -1;
  }
  int nfields = 0;
  while (nfields < 15 && next_u64(&p, end, &f[nfields]) == 0)
    nfields++;
  if (nfields < 11) {
    note_first(err,
               "/proc/diskstats line %d: %.*s has %d counters, expected at "
               "least 11, skipped",
               line_no, (int)len, tok, nfields);
    return -1;
  }
  memset(d, 0, sizeof *d);
  memcpy(d->name, tok, len);
  d->name[len] = '\0';
  /* f[]: 0 reads, 1 merged, 2 sectors, 3 ms, 4 writes, 5 merged, 6 sectors,
   * 7 ms, 8 in flight, 9 io_ticks, 10 weighted ms, 11..14 discards (4.18+). */
  d->rd_ios = f[0];
  d->rd_sectors = f[2];
  d->rd_ticks_ms = f[3];
  d->wr_ios = f[4];
  d->wr_sectors = f[6];
  d->wr_ticks_ms = f[7];
  d->io_ticks_ms = f[9];
  d->weighted_ms = f[10];
  if (nfields >= 15) {
    d->dc_ios = f[11];
    d->dc_ticks_ms = f[14];
  }
  return 1;
}

/* Disks appear before their partitions (sorted by device number), so the
 * whole disks already kept are enough to recognise a partition. Malformed
 * lines are skipped with a note in err; the count of devices is returned. */
int gw_parse_diskstats(const char *text, struct gw_disk_counters *out, int max, struct gw_err *err) {
  clear_err(err);
  if (!text || (!out && max > 0)) {
    gw_err_set(err, "/proc/diskstats: no text");
    return -1;
  }
  int n = 0, line_no = 0;
  const char *line = text;
  while (*line) {
    line_no++;
    const char *nl = strchr(line, '\n');
    const char *end = nl ? nl : line + strlen(line);
    struct gw_disk_counters d;
    if (parse_disk_line(line, end, line_no, &d, err) == 1 && n < max && !has_prefix(d.name, "loop") &&
        !has_prefix(d.name, "ram") && !has_prefix(d.name, "zram")) {
      int partition = 0;
      for (int i = 0; i < n && !partition; i++)
        partition = is_partition_of(d.name, out[i].name);
      if (!partition)
        out[n++] = d;
    }
    if (!nl)
      break;
    line = nl + 1;
  }
  return n;
}

/* ---- /proc/pressure/<res> ---- */

/* Returns how many counters were found: 1 ("some" only, as /proc/pressure/cpu
 * on kernels before 5.13) or 2; -1 when "some" is missing or malformed. */
int gw_parse_psi(const char *text, uint64_t *some_total_us, uint64_t *full_total_us, struct gw_err *err) {
  clear_err(err);
  if (!text || !some_total_us || !full_total_us) {
    gw_err_set(err, "pressure: no text");
    return -1;
  }
  int have_some = 0, have_full = 0, line_no = 0;
  const char *line = text;
  while (*line) {
    line_no++;
    const char *nl = strchr(line, '\n');
    const char *end = nl ? nl : line + strlen(line);
    const char *p = line;
    const char *tok;
    size_t len;
    if (next_token(&p, end, &tok, &len) == 0) {
      int is_some = len == 4 && memcmp(tok, "some", 4) == 0;
      int is_full = len == 4 && memcmp(tok, "full", 4) == 0;
      int found = 0;
      while ((is_some || is_full) && !found && next_token(&p, end, &tok, &len) == 0) {
        if (len > 6 && memcmp(tok, "total=", 6) == 0) {
          uint64_t v;
          if (token_u64(tok + 6, len - 6, &v) != 0)
            break;
          found = 1;
          if (is_some) {
            *some_total_us = v;
            have_some = 1;
          } else {
            *full_total_us = v;
            have_full = 1;
          }
        }
      }
      if ((is_some || is_full) && !found)
        note_first(err, "pressure line %d: no valid 'total=' microsecond counter", line_no);
    }
    if (!nl)
      break;
    line = nl + 1;
  }
  if (!have_some) {
    if (!err || !err->msg[0])
      gw_err_set(err, "pressure: no 'some ... total=N' line");
    return -1;
  }
  return have_full ? 2 : 1;
}
