#include "import/import_input.h"
#include "core/i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* zlib's buffer: compressed input for gzip files. Readers ask for more than
 * twice this, so plain files are read straight into their buffer. */
#define GZ_BUFFER_BYTES (256u << 10)

static int has_gzip_magic(const unsigned char *p, size_t n) {
  return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

gw_status gw_input_open_file(struct gw_input *in, const char *path, struct gw_err *err) {
  memset(in, 0, sizeof *in);
  gw_strlcpy(in->name, path, sizeof in->name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    gw_err_set(err, _("%s: cannot open: %s"), path, strerror(errno));
    return GW_EINPUT;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    gw_err_set(err, _("%s: not a regular file"), path);
    close(fd);
    return GW_EINPUT;
  }
  in->total_bytes = (uint64_t)sb.st_size;
  unsigned char magic[2];
  ssize_t n = pread(fd, magic, sizeof magic, 0);
  in->is_gzip = n == 2 && has_gzip_magic(magic, 2);
  /* gzdopen reads plain files unchanged, so one path serves both. */
  in->gz = gzdopen(fd, "rb");
  if (!in->gz) {
    gw_err_set(err, _("%s: cannot open for reading"), path);
    close(fd);
    return GW_EINPUT;
  }
  gzbuffer(in->gz, GZ_BUFFER_BYTES);
  return GW_OK;
}

static gw_status zs_start(struct gw_input *in, struct gw_err *err) {
  memset(&in->zs, 0, sizeof in->zs);
  /* 16 + MAX_WBITS: gzip wrapper only */
  if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK) {
    gw_err_set(err, _("%s: cannot start gzip decompression"), in->name);
    return GW_ERR;
  }
  in->zs_live = 1;
  in->zs_ended = 0;
  in->zs.next_in = (unsigned char *)in->mem;
  in->zs.avail_in = (uInt)(in->mem_len > UINT32_MAX ? UINT32_MAX : in->mem_len);
  in->mem_pos = 0;
  return GW_OK;
}

gw_status gw_input_open_buffer(struct gw_input *in, const void *data, size_t len, const char *name,
                               struct gw_err *err) {
  memset(in, 0, sizeof *in);
  gw_strlcpy(in->name, name ? name : "(buffer)", sizeof in->name);
  in->mem = data;
  in->mem_len = len;
  in->total_bytes = len;
  in->is_gzip = has_gzip_magic(in->mem, len);
  return in->is_gzip ? zs_start(in, err) : GW_OK;
}

static gw_status read_gz_file(struct gw_input *in, void *buf, size_t cap, size_t *got, struct gw_err *err) {
  unsigned want = cap > (1u << 30) ? (1u << 30) : (unsigned)cap;
  int n = gzread(in->gz, buf, want);
  int zerr = Z_OK;
  const char *msg = gzerror(in->gz, &zerr);
  if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
    /* Z_BUF_ERROR at the end is zlib's word for a stream cut short */
    gw_err_set(err, _("%s: gzip data %s at decompressed byte %llu (%s)"), in->name,
               zerr == Z_BUF_ERROR ? _("ends early (truncated file)") : _("is corrupt"), (unsigned long long)in->offset,
               msg ? msg : _("read error"));
    return GW_EINPUT;
  }
  *got = (size_t)n;
  return GW_OK;
}

static gw_status read_gz_mem(struct gw_input *in, void *buf, size_t cap, size_t *got, struct gw_err *err) {
  *got = 0;
  while (*got == 0 && !in->zs_ended) {
    in->zs.next_out = (unsigned char *)buf;
    in->zs.avail_out = (uInt)(cap > (1u << 30) ? (1u << 30) : cap);
    int rc = inflate(&in->zs, Z_NO_FLUSH);
    *got = (size_t)((unsigned char *)in->zs.next_out - (unsigned char *)buf);
    in->mem_pos = (size_t)(in->zs.next_in - in->mem);
    if (rc == Z_STREAM_END) {
      /* another gzip member may follow, as gzip allows */
      if (in->mem_pos < in->mem_len && has_gzip_magic(in->mem + in->mem_pos, in->mem_len - in->mem_pos)) {
        inflateReset(&in->zs);
      } else {
        in->zs_ended = 1;
      }
    } else if (rc == Z_BUF_ERROR && in->zs.avail_in == 0) {
      if (*got)
        break;
      gw_err_set(err, _("%s: gzip data ends early (truncated) at decompressed byte %llu"), in->name,
                 (unsigned long long)in->offset);
      return GW_EINPUT;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      gw_err_set(err, _("%s: gzip data is corrupt at compressed byte %zu (%s)"), in->name, in->mem_pos,
                 in->zs.msg ? in->zs.msg : "inflate failed");
      return GW_EINPUT;
    }
  }
  return GW_OK;
}

gw_status gw_input_read(struct gw_input *in, void *buf, size_t cap, size_t *got, struct gw_err *err) {
  gw_status rc;
  *got = 0;
  if (in->gz) {
    rc = read_gz_file(in, buf, cap, got, err);
  } else if (in->is_gzip) {
    rc = read_gz_mem(in, buf, cap, got, err);
  } else {
    size_t n = in->mem_len - in->mem_pos;
    if (n > cap)
      n = cap;
    memcpy(buf, in->mem + in->mem_pos, n);
    in->mem_pos += n;
    *got = n;
    rc = GW_OK;
  }
  in->offset += *got;
  return rc;
}

gw_status gw_input_rewind(struct gw_input *in, struct gw_err *err) {
  in->offset = 0;
  if (in->gz) {
    if (gzrewind(in->gz) != 0) {
      gw_err_set(err, _("%s: cannot go back to the start of the file"), in->name);
      return GW_EINPUT;
    }
    return GW_OK;
  }
  in->mem_pos = 0;
  if (in->is_gzip) {
    if (in->zs_live)
      inflateEnd(&in->zs);
    in->zs_live = 0;
    return zs_start(in, err);
  }
  return GW_OK;
}

uint64_t gw_input_position(struct gw_input *in) {
  if (in->gz) {
    z_off_t off = in->is_gzip ? gzoffset(in->gz) : gztell(in->gz);
    return off > 0 ? (uint64_t)off : 0;
  }
  return in->mem_pos;
}

void gw_input_close(struct gw_input *in) {
  if (in->gz)
    gzclose(in->gz);
  if (in->zs_live)
    inflateEnd(&in->zs);
  in->gz = NULL;
  in->zs_live = 0;
}
