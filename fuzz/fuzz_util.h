/* Helpers shared by the libFuzzer targets: a private scratch folder, input
 * bytes as a C string or a file, and a check that stops the run when a
 * promise of the parser under test is broken (a crash libFuzzer records). */
#ifndef GW_FUZZ_UTIL_H
#define GW_FUZZ_UTIL_H

#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Abort with a message: libFuzzer saves the input as a crash. */
#define FUZZ_CHECK(cond)                                                                                               \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond);                                       \
      abort();                                                                                                         \
    }                                                                                                                  \
  } while (0)

static char fuzz_scratch[256];

static inline int fuzz_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

static inline void fuzz_remove_scratch(void) {
  nftw(fuzz_scratch, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A folder under TMPDIR made once per process and removed at its normal
 * end (after a crash it stays, with what the input left there). */
static inline const char *fuzz_scratch_dir(void) {
  if (!fuzz_scratch[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_scratch, sizeof fuzz_scratch, "%s/gw-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_scratch)) {
      perror("mkdtemp");
      abort();
    }
    atexit(fuzz_remove_scratch);
  }
  return fuzz_scratch;
}

/* scratch/name into buf. */
static inline void fuzz_path(char *buf, size_t cap, const char *name) {
  if (snprintf(buf, cap, "%s/%s", fuzz_scratch_dir(), name) >= (int)cap)
    abort();
}

/* A malloc'd copy of the bytes with a NUL after them and nothing more, so
 * AddressSanitizer sees any read past the end. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s)
    abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Replace the file at path with the bytes; -1 when it cannot be written. */
static inline int fuzz_try_write_file(const char *path, const void *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  const char *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    p += n;
    size -= (size_t)n;
  }
  close(fd);
  return 0;
}

/* The same for the harness's own files, which must work. */
static inline void fuzz_write_file(const char *path, const void *data, size_t size) {
  if (fuzz_try_write_file(path, data, size) != 0) {
    perror(path);
    abort();
  }
}

/* A hash of the bytes, 8 a step and outside the coverage instrumentation
 * (noinline, or -O1 puts it in an instrumented caller): byte by byte with a
 * coverage hook per compare it cost a quarter of a run on 50 KB inputs. */
static inline __attribute__((no_sanitize("coverage"), noinline)) uint64_t fuzz_hash64(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* 1 when the string is NUL-terminated within cap bytes. */
static inline int fuzz_terminated(const char *s, size_t cap) {
  return memchr(s, '\0', cap) != NULL;
}

#endif
