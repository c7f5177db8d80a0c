/* Bytes of an input file or of a memory buffer, gzip or plain, read in
 * chunks: the importers never hold a whole document. Gzip is recognised by
 * its magic bytes, not by the file name. */
#ifndef GW_IMPORT_INPUT_H
#define GW_IMPORT_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "core/util.h"

struct gw_input {
  char name[1024]; /* file name for messages */
  int is_gzip;
  uint64_t total_bytes; /* size of the file or buffer (compressed size for gzip) */
  uint64_t offset;      /* decompressed bytes handed out so far */
  /* file mode */
  gzFile gz;
  /* buffer mode */
  const unsigned char *mem;
  size_t mem_len, mem_pos;
  z_stream zs;
  int zs_live, zs_ended;
};

/* Open a file for reading (plain or gzip). */
GW_NODISCARD gw_status gw_input_open_file(struct gw_input *in, const char *path, struct gw_err *err);
/* Read from memory (plain or gzip); the buffer must outlive the input. */
GW_NODISCARD gw_status gw_input_open_buffer(struct gw_input *in, const void *data, size_t len, const char *name,
                                            struct gw_err *err);
/* Up to cap bytes into buf; *got is 0 at the end. A corrupt or truncated
 * gzip stream is an error naming the offset. */
GW_NODISCARD gw_status gw_input_read(struct gw_input *in, void *buf, size_t cap, size_t *got, struct gw_err *err);
/* Back to the first byte. */
GW_NODISCARD gw_status gw_input_rewind(struct gw_input *in, struct gw_err *err);
/* Input bytes consumed so far, comparable with total_bytes (for progress). */
uint64_t gw_input_position(struct gw_input *in);
void gw_input_close(struct gw_input *in);

#endif
