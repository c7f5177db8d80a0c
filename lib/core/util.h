/* Small helpers shared by every module of libgpuwhy: status codes, clocks,
 * bounded file reads under a root directory, and an error buffer. */
#ifndef GW_UTIL_H
#define GW_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define GW_NODISCARD __attribute__((warn_unused_result))
#define GW_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* Status codes. 0 is success; every failing call also fills a gw_err. */
typedef enum {
  GW_OK = 0,
  GW_ERR = 1,     /* generic failure, see the message */
  GW_ENOTSUP = 2, /* the source or metric does not exist here */
  GW_EINPUT = 3,  /* malformed outside bytes (file, line, field) */
  GW_ELOST = 4,   /* a device disappeared mid-run */
  GW_ENOMEM = 5,
  GW_EIO = 6,
} gw_status;

/* A message buffer that carries the reason of the last failure.
 * The library never prints; the CLI prints gw_err.msg. */
struct gw_err {
  char msg[512];
};

void gw_err_set(struct gw_err *err, const char *fmt, ...) GW_PRINTF(2, 3);

/* Wall clock (CLOCK_REALTIME) in ns since the epoch: the time base of every
 * timestamp in a recording, the same base CUPTI uses on Linux. */
int64_t gw_now_realtime_ns(void);
/* CLOCK_MONOTONIC in ns, for intervals that must not jump. */
int64_t gw_now_monotonic_ns(void);
/* CLOCK_BOOTTIME minus CLOCK_MONOTONIC is not needed; kmsg uses monotonic us.
 * Offset to add to a CLOCK_MONOTONIC ns value to get realtime ns. */
int64_t gw_monotonic_to_realtime_offset_ns(void);

/* Read a whole small file below root (root "" or NULL means "/") into buf,
 * NUL-terminated. Returns the length, or -1 with errno set. A file longer than
 * cap-1 bytes is truncated and flagged through *truncated (may be NULL). */
long gw_read_file_at(const char *root, const char *path, char *buf, size_t cap, int *truncated);

/* Join root and path into out. Returns 0, or -1 if it does not fit. */
int gw_path_at(const char *root, const char *path, char *out, size_t cap);

/* Checked number parsing: the whole token must be a number. 0 on success. */
int gw_parse_u64(const char *s, uint64_t *out);
int gw_parse_i64(const char *s, int64_t *out);
/* The real path of REL (starting with '/') below the running binary's folder,
 * for files installed beside it; 0 when it exists and fits in out. */
int gw_path_beside_exe(const char *rel, char *out, size_t cap);
int gw_parse_double(const char *s, double *out);

/* Bounded copy that always NUL-terminates; returns 1 if it truncated. */
int gw_strlcpy(char *dst, const char *src, size_t cap);

/* The n bytes at src as a string in dst (a token cut out of a longer text, to
 * parse on its own); -1, dst untouched, when n is 0 or dst cannot hold them. */
int gw_copy_token(char *dst, size_t cap, const char *src, size_t n);

/* Appends s at buf[*len] (NUL-terminated, *len moves on); -1, buf unchanged,
 * when it would not fit in cap. */
int gw_str_append(char *buf, size_t cap, size_t *len, const char *s);

void *gw_xcalloc(size_t n, size_t size);
void *gw_xrealloc(void *p, size_t size);
char *gw_xstrdup(const char *s);

/* 1 when name is prefix, at least one more character, then suffix. */
int gw_name_matches(const char *name, const char *prefix, const char *suffix);
/* Unlinks the files of dir whose names match (a run's leftover spool files). */
void gw_remove_matching_files(const char *dir, const char *prefix, const char *suffix);
/* Creates a private folder $TMPDIR/PREFIX-XXXXXX (/tmp without TMPDIR) and
 * writes its path to out; -1 with errno when it cannot. *parent_out (may be
 * NULL) gets the folder it was made in, for messages. */
int gw_make_temp_dir(const char *prefix, char *out, size_t cap, const char **parent_out);
/* Creates dir and the folders above it (mode 0755), as mkdir -p; 0, or -1
 * with errno when one cannot be made. */
int gw_mkdir_p(const char *dir);
/* Formats a message into errbuf (the commands' error buffer) and returns rc,
 * so that a failing branch is one statement. */
int gw_errbuf_fail(char *errbuf, size_t errcap, int rc, const char *fmt, ...) GW_PRINTF(4, 5);

/* The three-way order of two integers, as qsort's comparators return it:
 * -1, 0 or 1 (a difference could overflow). */
static inline int gw_cmp_i64(int64_t a, int64_t b) {
  return (a > b) - (a < b);
}

/* Index of the first of the n ascending times in t_ns at or after t (n when
 * all are earlier): one binary search for every time series lookup, and for
 * other sorted int64_t lists (step_breakdown's slow step indices). */
size_t gw_first_at_or_after(const int64_t *t_ns, size_t n, int64_t t);

/* arg quoted for a POSIX shell into buf: as it is when only safe characters,
 * else in single quotes ('\'' for a quote). 0, or -1 when it does not fit. */
int gw_shell_quote(const char *arg, char *buf, size_t cap);

#endif
