#include "import/import_smi.h"
#include "core/i18n.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_LINE_BYTES 65536
#define MAX_COLUMNS 128
#define READ_BYTES (1u << 16)
#define NS_PER_S 1000000000LL
#define MIB 1048576.0

/* What a column becomes. */
enum col_role {
  ROLE_IGNORE,
  ROLE_GPU,       /* GPU index */
  ROLE_GPU_ID,    /* uuid or PCI bus id: GPUs numbered by first appearance when no
                     index */
  ROLE_DATE,      /* dmon -o D: YYYYMMDD */
  ROLE_TIME,      /* dmon -o T: HH:MM:SS */
  ROLE_TIMESTAMP, /* query: YYYY/MM/DD HH:MM:SS.mmm */
  ROLE_METRIC,
  ROLE_PSTATE,  /* "P0" */
  ROLE_REASONS, /* 0x... bitmask */
  ROLE_INFO_NAME,
  ROLE_INFO_UUID,
  ROLE_INFO_BUS,
  ROLE_INFO_MEM_MIB,
  ROLE_INFO_POWER_DEFAULT_W,
  ROLE_INFO_SM_MAX_MHZ,
  ROLE_INFO_MEM_MAX_MHZ,
  ROLE_INFO_PCIE_GEN_MAX,
  ROLE_INFO_PCIE_WIDTH_MAX,
};

struct col_map {
  const char *name;
  enum col_role role;
  enum gw_gpu_metric metric;
  double scale; /* value in the log times scale = value in the recording's unit */
};

/* dmon column names (header line 1). enc/dec/jpg/ofa, bar1, ccpm, the ECC and
 * replay columns and the violation columns have no recording column with the
 * same meaning and are left out (and listed as such). */
static const struct col_map DMON_COLUMNS[] = {
    {"gpu", ROLE_GPU, 0, 1},
    {"date", ROLE_DATE, 0, 1},
    {"time", ROLE_TIME, 0, 1},
    {"pwr", ROLE_METRIC, GW_M_power_mw, 1000},
    {"gtemp", ROLE_METRIC, GW_M_temp_gpu_c, 1},
    {"mtemp", ROLE_METRIC, GW_M_temp_mem_c, 1},
    {"sm", ROLE_METRIC, GW_M_util_gpu_pct, 1}, /* dmon's sm is GPU-Util, not GPM SM activity */
    {"mem", ROLE_METRIC, GW_M_util_mem_pct, 1},
    {"mclk", ROLE_METRIC, GW_M_mem_clock_mhz, 1},
    {"pclk", ROLE_METRIC, GW_M_sm_clock_mhz, 1},
    {"fb", ROLE_METRIC, GW_M_mem_used_bytes, MIB},
    {"rxpci", ROLE_METRIC, GW_M_pcie_rx_bps, MIB},
    {"txpci", ROLE_METRIC, GW_M_pcie_tx_bps, MIB},
};

/* --query-gpu field names (the header without its " [unit]"). */
static const struct col_map QUERY_COLUMNS[] = {
    {"timestamp", ROLE_TIMESTAMP, 0, 1},
    {"index", ROLE_GPU, 0, 1},
    {"uuid", ROLE_INFO_UUID, 0, 1},
    {"gpu_uuid", ROLE_INFO_UUID, 0, 1},
    {"pci.bus_id", ROLE_INFO_BUS, 0, 1},
    {"gpu_bus_id", ROLE_INFO_BUS, 0, 1},
    {"name", ROLE_INFO_NAME, 0, 1},
    {"gpu_name", ROLE_INFO_NAME, 0, 1},
    {"memory.total", ROLE_INFO_MEM_MIB, 0, 1},
    {"power.default_limit", ROLE_INFO_POWER_DEFAULT_W, 0, 1},
    {"clocks.max.sm", ROLE_INFO_SM_MAX_MHZ, 0, 1},
    {"clocks.max.graphics", ROLE_INFO_SM_MAX_MHZ, 0, 1},
    {"clocks.max.memory", ROLE_INFO_MEM_MAX_MHZ, 0, 1},
    {"clocks.max.mem", ROLE_INFO_MEM_MAX_MHZ, 0, 1},
    {"pcie.link.gen.max", ROLE_INFO_PCIE_GEN_MAX, 0, 1},
    {"pcie.link.width.max", ROLE_INFO_PCIE_WIDTH_MAX, 0, 1},
    {"utilization.gpu", ROLE_METRIC, GW_M_util_gpu_pct, 1},
    {"utilization.memory", ROLE_METRIC, GW_M_util_mem_pct, 1},
    {"memory.used", ROLE_METRIC, GW_M_mem_used_bytes, MIB},
    {"power.draw", ROLE_METRIC, GW_M_power_mw, 1000},
    {"power.draw.instant", ROLE_METRIC, GW_M_power_mw, 1000},
    {"power.draw.average", ROLE_METRIC, GW_M_power_mw, 1000},
    {"power.limit", ROLE_METRIC, GW_M_power_limit_mw, 1000},
    {"enforced.power.limit", ROLE_METRIC, GW_M_power_limit_mw, 1000},
    {"clocks.sm", ROLE_METRIC, GW_M_sm_clock_mhz, 1},
    {"clocks.current.sm", ROLE_METRIC, GW_M_sm_clock_mhz, 1},
    {"clocks.gr", ROLE_METRIC, GW_M_sm_clock_mhz, 1},
    {"clocks.current.graphics", ROLE_METRIC, GW_M_sm_clock_mhz, 1},
    {"clocks.mem", ROLE_METRIC, GW_M_mem_clock_mhz, 1},
    {"clocks.current.memory", ROLE_METRIC, GW_M_mem_clock_mhz, 1},
    {"temperature.gpu", ROLE_METRIC, GW_M_temp_gpu_c, 1},
    {"temperature.memory", ROLE_METRIC, GW_M_temp_mem_c, 1},
    {"pstate", ROLE_PSTATE, GW_M_pstate, 1},
    {"clocks_event_reasons.active", ROLE_REASONS, GW_M_clock_reasons, 1},
    {"clocks_throttle_reasons.active", ROLE_REASONS, GW_M_clock_reasons, 1},
    {"pcie.link.gen.current", ROLE_METRIC, GW_M_pcie_gen, 1},
    {"pcie.link.gen.gpucurrent", ROLE_METRIC, GW_M_pcie_gen, 1},
    {"pcie.link.width.current", ROLE_METRIC, GW_M_pcie_width, 1},
    {"ecc.errors.corrected.volatile.total", ROLE_METRIC, GW_M_ecc_sbe_volatile, 1},
    {"ecc.errors.uncorrected.volatile.total", ROLE_METRIC, GW_M_ecc_dbe_volatile, 1},
    {"clocks_event_reasons_counters.sw_power_cap", ROLE_METRIC, GW_M_viol_power_cap_ns, 1000},
    {"clocks_event_reasons_counters.sync_boost", ROLE_METRIC, GW_M_viol_sync_boost_ns, 1000},
    {"clocks_event_reasons_counters.sw_thermal_slowdown", ROLE_METRIC, GW_M_viol_sw_thermal_ns, 1000},
    {"clocks_event_reasons_counters.hw_thermal_slowdown", ROLE_METRIC, GW_M_viol_hw_thermal_ns, 1000},
    {"clocks_event_reasons_counters.hw_power_brake_slowdown", ROLE_METRIC, GW_M_viol_hw_power_brake_ns, 1000},
};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

static const struct col_map *find_col(const struct col_map *t, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcasecmp(t[i].name, name) == 0)
      return &t[i];
  return NULL;
}

/* ---- tokenising ---- */

struct fields {
  int n;
  char *f[MAX_COLUMNS];
};

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\r')
    s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

/* Split line (modified in place) on commas when csv, else on blanks.
 * Returns -1 when there are more than MAX_COLUMNS fields. */
static int split(char *line, int csv, struct fields *out) {
  out->n = 0;
  char *p = line;
  if (csv) {
    for (;;) {
      char *c = strchr(p, ',');
      if (out->n >= MAX_COLUMNS)
        return -1;
      if (c)
        *c = '\0';
      out->f[out->n++] = trim(p);
      if (!c)
        break;
      p = c + 1;
    }
    return 0;
  }
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r')
      p++;
    if (!*p)
      break;
    if (out->n >= MAX_COLUMNS)
      return -1;
    out->f[out->n++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r')
      p++;
    if (*p)
      *p++ = '\0';
  }
  return 0;
}

/* Header name without its " [unit]" and leading '#'. */
static void header_name(char *f) {
  char *b = strchr(f, '[');
  if (b) {
    *b = '\0';
    char *t = trim(f);
    memmove(f, t, strlen(t) + 1);
  }
}

/* ---- sniffing ---- */

/* A known --query-gpu field; "name" alone is too common a word to count. */
static int known_query_name(const char *name) {
  const struct col_map *c = find_col(QUERY_COLUMNS, NCOLS(QUERY_COLUMNS), name);
  return c && c->role != ROLE_INFO_NAME;
}

enum gw_smi_kind gw_smi_sniff(const char *first_line, size_t len) {
  char line[1024];
  if (len == 0)
    return GW_SMI_NONE;
  if (len >= sizeof line)
    len = sizeof line - 1;
  memcpy(line, first_line, len);
  line[len] = '\0';
  struct fields fl;
  if (line[0] == '#') {
    int csv = strchr(line, ',') != NULL;
    if (split(line + 1, csv, &fl) != 0 || fl.n < 2)
      return GW_SMI_NONE;
    int has_gpu = 0, known = 0;
    for (int i = 0; i < fl.n; i++) {
      if (strcasecmp(fl.f[i], "pid") == 0)
        return GW_SMI_NONE; /* pmon: per process */
      const struct col_map *c = find_col(DMON_COLUMNS, NCOLS(DMON_COLUMNS), fl.f[i]);
      has_gpu |= c && c->role == ROLE_GPU;
      known += c && c->role == ROLE_METRIC;
    }
    return has_gpu && known ? GW_SMI_DMON : GW_SMI_NONE;
  }
  if (!strchr(line, ',') && !known_query_name(trim(line)))
    return GW_SMI_NONE;
  if (split(line, 1, &fl) != 0)
    return GW_SMI_NONE;
  int known = 0;
  for (int i = 0; i < fl.n; i++) {
    header_name(fl.f[i]);
    for (const char *c = fl.f[i]; *c; c++)
      if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '.' || *c == '_'))
        return GW_SMI_NONE;
    known += known_query_name(fl.f[i]);
  }
  return known ? GW_SMI_QUERY : GW_SMI_NONE;
}

/* ---- line reader ---- */

struct lines {
  struct gw_input *in;
  char *buf;
  size_t len, pos;
  int eof;
  uint64_t lineno;
  const struct gw_smi_opts *opts;
};

/* Next line without its newline, NUL-terminated, in *line; NULL at the end. */
static gw_status next_line(struct lines *r, char **line, struct gw_err *err) {
  *line = NULL;
  for (;;) {
    char *start = r->buf + r->pos;
    char *nl = memchr(start, '\n', r->len - r->pos);
    if (nl || (r->eof && r->pos < r->len)) {
      size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;
      start[n] = '\0';
      r->pos += n + (nl ? 1 : 0);
      r->lineno++;
      if (memchr(start, '\0', n)) {
        gw_err_set(err, _("%s: line %llu: a NUL byte in a text log (binary file?)"), r->in->name,
                   (unsigned long long)r->lineno);
        return GW_EINPUT;
      }
      *line = start;
      return GW_OK;
    }
    if (r->eof)
      return GW_OK;
    if (r->len - r->pos >= MAX_LINE_BYTES) {
      gw_err_set(err, _("%s: line %llu is longer than %d bytes: not an nvidia-smi log"), r->in->name,
                 (unsigned long long)r->lineno + 1, MAX_LINE_BYTES);
      return GW_EINPUT;
    }
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
    size_t got;
    gw_status rc = gw_input_read(r->in, r->buf + r->len, MAX_LINE_BYTES + READ_BYTES - r->len, &got, err);
    if (rc)
      return rc;
    if (got == 0)
      r->eof = 1;
    r->len += got;
    if (r->opts && r->opts->progress)
      r->opts->progress(r->opts->progress_ctx, gw_input_position(r->in), r->in->total_bytes);
  }
}

/* ---- values ---- */

static int is_missing(const char *v) {
  return !*v || strcmp(v, "-") == 0 || v[0] == '[' || strcasecmp(v, "N/A") == 0;
}

/* Leading number of "122.89 W", "45 %", "549 MiB". */
static int parse_number_unit(const char *v, double *out) {
  char buf[64];
  size_t n = strcspn(v, " \t");
  if (gw_copy_token(buf, sizeof buf, v, n) != 0)
    return -1;
  return gw_parse_double(buf, out) == 0 && isfinite(*out) ? 0 : -1;
}

/* Local time fields to epoch ns (nvidia-smi writes local time). */
static int local_ns(int year, int mon, int day, int hh, int mm, int ss, int64_t frac_ns, int64_t *out) {
  /* before 2096: ns since 1970 then fit int64 with room, as the recording's readers expect */
  if (year < 1970 || year > 2095 || mon < 1 || mon > 12 || day < 1 || day > 31 || hh < 0 || hh > 23 || mm < 0 ||
      mm > 59 || ss < 0 || ss > 60)
    return -1;
  struct tm tm = {0};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hh;
  tm.tm_min = mm;
  tm.tm_sec = ss;
  tm.tm_isdst = -1;
  time_t t = mktime(&tm);
  if (t == (time_t)-1)
    return -1;
  *out = (int64_t)t * NS_PER_S + frac_ns;
  return 0;
}

static int digits(const char *s, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 0;
}

/* "HH:MM:SS" */
static int parse_hms(const char *s, int *hh, int *mm, int *ss) {
  return strlen(s) >= 8 && s[2] == ':' && s[5] == ':' && !digits(s, 2, hh) && !digits(s + 3, 2, mm) &&
                 !digits(s + 6, 2, ss)
             ? 0
             : -1;
}

/* "2026/11/29 18:25:06.047" */
static int parse_query_timestamp(const char *s, int64_t *out) {
  int y, mo, d, hh, mm, ss;
  if (strlen(s) < 19 || s[4] != '/' || s[7] != '/' || s[10] != ' ' || digits(s, 4, &y) || digits(s + 5, 2, &mo) ||
      digits(s + 8, 2, &d) || parse_hms(s + 11, &hh, &mm, &ss))
    return -1;
  int64_t frac = 0;
  const char *f = s + 19;
  if (*f == '.') {
    int64_t scale = 100000000;
    for (f++; *f >= '0' && *f <= '9'; f++, scale /= 10)
      frac += (*f - '0') * scale;
  }
  if (*f)
    return -1;
  return local_ns(y, mo, d, hh, mm, ss, frac, out);
}

/* ---- the import ---- */

struct column {
  char name[48];
  const struct col_map *map;
};

struct gpu_seen {
  int used;
  int info_written;
  char id[96]; /* uuid or bus id, when GPUs are told apart that way */
};

struct smi {
  struct gw_import_sink *sink;
  const struct gw_smi_opts *opts;
  struct gw_smi_result *res;
  struct gw_err *err;
  const char *name;
  enum gw_smi_kind kind;
  int csv;
  int ncols;
  struct column cols[MAX_COLUMNS];
  char header_copy[MAX_LINE_BYTES];
  int col_gpu, col_gpu_id, col_date, col_time, col_timestamp;
  int has_times;
  /* laid-out times for logs without them */
  int64_t start_ns, interval_ns, group;
  unsigned char in_group[GW_SINK_MAX_GPU_INDEX];
  /* dmon -o T without a date: the date of the start, rolled over at midnight */
  int64_t day_base_ns, last_tod_ns;
  struct gpu_seen gpus[64];
  int ngpu_ids;
};

static gw_status line_error(struct smi *s, uint64_t lineno, const char *fmt, ...) GW_PRINTF(3, 4);
static gw_status line_error(struct smi *s, uint64_t lineno, const char *fmt, ...) {
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  gw_err_set(s->err, _("%s: line %llu: %s"), s->name, (unsigned long long)lineno, what);
  return GW_EINPUT;
}

static void note_ignored(struct smi *s, const char *col) {
  size_t len = strlen(s->res->columns_ignored);
  snprintf(s->res->columns_ignored + len, sizeof s->res->columns_ignored - len, "%s%s", len ? " " : "", col);
}

static gw_status read_header(struct smi *s, char *line, uint64_t lineno) {
  struct fields fl;
  s->csv = strchr(line, ',') != NULL;
  snprintf(s->header_copy, sizeof s->header_copy, "%s", line);
  char *text = line[0] == '#' ? line + 1 : line;
  if (split(text, s->csv, &fl) != 0 || fl.n < 1)
    return line_error(s, lineno, _("a header with more than 128 columns"));
  s->ncols = fl.n;
  s->col_gpu = s->col_gpu_id = s->col_date = s->col_time = s->col_timestamp = -1;
  const struct col_map *table = s->kind == GW_SMI_DMON ? DMON_COLUMNS : QUERY_COLUMNS;
  size_t ntable = s->kind == GW_SMI_DMON ? NCOLS(DMON_COLUMNS) : NCOLS(QUERY_COLUMNS);
  for (int i = 0; i < fl.n; i++) {
    header_name(fl.f[i]);
    gw_strlcpy(s->cols[i].name, fl.f[i], sizeof s->cols[i].name);
    const struct col_map *m = find_col(table, ntable, fl.f[i]);
    s->cols[i].map = m;
    if (!m) {
      note_ignored(s, fl.f[i]);
      continue;
    }
    switch (m->role) {
    case ROLE_GPU:
      s->col_gpu = i;
      break;
    case ROLE_INFO_UUID:
    case ROLE_INFO_BUS:
      if (s->col_gpu_id < 0)
        s->col_gpu_id = i;
      break;
    case ROLE_DATE:
      s->col_date = i;
      break;
    case ROLE_TIME:
      s->col_time = i;
      break;
    case ROLE_TIMESTAMP:
      s->col_timestamp = i;
      break;
    default:
      break;
    }
  }
  if (s->kind == GW_SMI_DMON && s->col_gpu < 0)
    return line_error(s, lineno, _("a dmon header without the gpu column"));
  s->has_times = s->col_timestamp >= 0 || s->col_time >= 0;
  return GW_OK;
}

/* GPU index of a data row. */
static int row_gpu(struct smi *s, struct fields *fl, uint64_t lineno, int *gpu) {
  if (s->col_gpu >= 0) {
    uint64_t v;
    if (gw_parse_u64(fl->f[s->col_gpu], &v) != 0 || v >= GW_SINK_MAX_GPU_INDEX) {
      line_error(s, lineno, _("the GPU index '%s' is not a number from 0 to 4095"), fl->f[s->col_gpu]);
      return -1;
    }
    *gpu = (int)v;
    return 0;
  }
  if (s->col_gpu_id >= 0) {
    const char *id = fl->f[s->col_gpu_id];
    for (int i = 0; i < s->ngpu_ids; i++)
      if (strcmp(s->gpus[i].id, id) == 0) {
        *gpu = i;
        return 0;
      }
    if (s->ngpu_ids >= (int)NCOLS(s->gpus)) {
      line_error(s, lineno, _("more than 64 GPUs told apart by '%s'"), s->cols[s->col_gpu_id].name);
      return -1;
    }
    gw_strlcpy(s->gpus[s->ngpu_ids].id, id, sizeof s->gpus[0].id);
    *gpu = s->ngpu_ids++;
    return 0;
  }
  *gpu = 0; /* one GPU: the log does not say which */
  return 0;
}

static int row_time(struct smi *s, struct fields *fl, int gpu, uint64_t lineno, int64_t *t) {
  if (s->col_timestamp >= 0) {
    if (parse_query_timestamp(fl->f[s->col_timestamp], t) != 0) {
      line_error(s, lineno, _("expected a timestamp like 2026/11/29 18:25:06.047, found '%s'"),
                 fl->f[s->col_timestamp]);
      return -1;
    }
    return 0;
  }
  if (s->col_time >= 0) {
    int hh, mm, ss;
    if (parse_hms(fl->f[s->col_time], &hh, &mm, &ss) != 0 || fl->f[s->col_time][8]) {
      line_error(s, lineno, _("expected a time like 18:25:06, found '%s'"), fl->f[s->col_time]);
      return -1;
    }
    int64_t tod = ((int64_t)hh * 3600 + mm * 60 + ss) * NS_PER_S;
    if (s->col_date >= 0) {
      int y, mo, d;
      const char *ds = fl->f[s->col_date];
      if (strlen(ds) != 8 || digits(ds, 4, &y) || digits(ds + 4, 2, &mo) || digits(ds + 6, 2, &d) ||
          local_ns(y, mo, d, hh, mm, ss, 0, t) != 0) {
        line_error(s, lineno, _("expected a date like 20261129, found '%s'"), ds);
        return -1;
      }
      return 0;
    }
    /* time of day only: the day comes from the start, rolling over at midnight
     */
    if (tod < s->last_tod_ns)
      s->day_base_ns += 86400 * NS_PER_S;
    s->last_tod_ns = tod;
    *t = s->day_base_ns + tod;
    return 0;
  }
  /* no times: a new sample group starts when a GPU shows up again */
  if (s->in_group[gpu]) {
    memset(s->in_group, 0, sizeof s->in_group);
    s->group++;
  }
  s->in_group[gpu] = 1;
  *t = s->start_ns + s->group * s->interval_ns;
  return 0;
}

/* The unsigned field of gw_gpu_info a column fills as it reads (clocks, PCIe
 * link); NULL for the other columns. */
static unsigned *info_unsigned_field(struct gw_gpu_info *info, enum col_role role) {
  switch (role) {
  case ROLE_INFO_SM_MAX_MHZ:
    return &info->sm_clock_max_mhz;
  case ROLE_INFO_MEM_MAX_MHZ:
    return &info->mem_clock_max_mhz;
  case ROLE_INFO_PCIE_GEN_MAX:
    return &info->pcie_gen_max;
  case ROLE_INFO_PCIE_WIDTH_MAX:
    return &info->pcie_width_max;
  default:
    return NULL;
  }
}

static gw_status write_info(struct smi *s, struct fields *fl, int gpu) {
  if (gpu >= (int)NCOLS(s->gpus) || s->gpus[gpu].info_written)
    return GW_OK;
  s->gpus[gpu].info_written = 1;
  struct gw_gpu_info info;
  memset(&info, 0, sizeof info);
  info.index = (unsigned)gpu;
  info.temp_slowdown_c = info.temp_shutdown_c = -1;
  info.windowed_supported = info.mig_enabled = info.persistence_mode = info.compute_mode = info.ecc_enabled = -1;
  for (int i = 0; i < s->ncols; i++) {
    const struct col_map *m = s->cols[i].map;
    const char *v = fl->f[i];
    double d = 0;
    if (!m || is_missing(v))
      continue;
    /* each integer field below also takes a reading only inside its type's range: converting a
     * float beyond it is undefined (a damaged log said 1.1e10 MHz); such a reading stays unknown */
    int num = parse_number_unit(v, &d) == 0 && d >= 0 && d < 1e15;
    switch (m->role) {
    case ROLE_INFO_NAME:
      gw_strlcpy(info.name, v, sizeof info.name);
      break;
    case ROLE_INFO_UUID:
      gw_strlcpy(info.uuid, v, sizeof info.uuid);
      break;
    case ROLE_INFO_BUS:
      gw_strlcpy(info.pci_bus_id, v, sizeof info.pci_bus_id);
      break;
    case ROLE_INFO_MEM_MIB:
      if (num && d * MIB < 0x1p64)
        info.mem_total_bytes = (uint64_t)(d * MIB);
      break;
    case ROLE_INFO_POWER_DEFAULT_W:
      if (num && d * 1000 <= UINT_MAX)
        info.power_default_limit_mw = (unsigned)llround(d * 1000);
      break;
    default: {
      unsigned *whole = info_unsigned_field(&info, m->role);
      if (whole && num && d <= UINT_MAX)
        *whole = (unsigned)d;
      break;
    }
    }
  }
  return gw_sink_gpu_info(s->sink, &info, s->err);
}

static gw_status data_row(struct smi *s, char *line, uint64_t lineno) {
  struct fields fl;
  if (split(line, s->csv, &fl) != 0 || fl.n != s->ncols) {
    return line_error(s, lineno, _("expected %d values as the header says, found %d"), s->ncols, fl.n);
  }
  int gpu;
  int64_t t;
  if (row_gpu(s, &fl, lineno, &gpu) != 0 || row_time(s, &fl, gpu, lineno, &t) != 0)
    return GW_EINPUT;
  gw_status rc = write_info(s, &fl, gpu);
  if (rc)
    return rc;
  struct gw_gpu_sample smp;
  memset(&smp, 0, sizeof smp);
  smp.t_ns = t;
  smp.gpu = (unsigned)gpu;
  unsigned what = 1u << GW_TABLE_FAST;
  for (int i = 0; i < s->ncols; i++) {
    const struct col_map *m = s->cols[i].map;
    const char *v = fl.f[i];
    if (!m || (m->role != ROLE_METRIC && m->role != ROLE_PSTATE && m->role != ROLE_REASONS) || is_missing(v))
      continue;
    double d;
    if (m->role == ROLE_PSTATE) {
      uint64_t ps;
      if ((v[0] != 'P' && v[0] != 'p') || gw_parse_u64(v + 1, &ps) != 0 || ps > 15)
        return line_error(s, lineno, _("column pstate: expected P0 to P15, found '%s'"), v);
      d = (double)ps;
    } else if (m->role == ROLE_REASONS) {
      char *end;
      unsigned long long bits = strtoull(v, &end, 16);
      if (end == v || *end)
        return line_error(s, lineno, _("column %s: expected a hexadecimal bitmask, found '%s'"), s->cols[i].name, v);
      d = (double)bits;
    } else if (parse_number_unit(v, &d) != 0) {
      return line_error(s, lineno, _("column %s: expected a number, found '%s'"), s->cols[i].name, v);
    }
    /* integer metrics are stored as int64: beyond 4e18 (the bound the loader
     * reads as unknown) the cast would overflow */
    if (fabs(d * m->scale) > 4e18)
      return line_error(s, lineno, _("column %s: '%s' is out of range"), s->cols[i].name, v);
    gw_gpu_set(&smp, m->metric, d * m->scale);
    if (gw_gpu_metric_info[m->metric].table == GW_TABLE_SLOW)
      what |= 1u << GW_TABLE_SLOW;
  }
  s->res->samples++;
  return gw_sink_gpu_sample(s->sink, &smp, what, s->err);
}

/* Logs without times: count the sample groups so the last one lands at the
 * file's modification time (nvidia-smi writes each line as it samples). */
static gw_status count_groups(struct smi *s, struct lines *r, int64_t *groups) {
  char *line;
  gw_status rc;
  unsigned char seen[GW_SINK_MAX_GPU_INDEX] = {0};
  *groups = 0;
  int any = 0;
  while (!(rc = next_line(r, &line, s->err)) && line) {
    struct fields fl;
    char *t = trim(line);
    if (!*t || t[0] == '#' || (s->kind == GW_SMI_QUERY && r->lineno == 1))
      continue;
    if (split(t, s->csv, &fl) != 0 || fl.n != s->ncols)
      continue; /* reported by the real pass */
    int gpu;
    struct gw_err quiet;
    struct gw_err *keep = s->err;
    s->err = &quiet;
    int bad = row_gpu(s, &fl, r->lineno, &gpu);
    s->err = keep;
    if (bad)
      continue;
    if (seen[gpu]) {
      memset(seen, 0, sizeof seen);
      (*groups)++;
    }
    seen[gpu] = 1;
    any = 1;
  }
  if (any)
    (*groups)++;
  s->ngpu_ids = 0;
  return rc;
}

gw_status gw_smi_import(struct gw_input *in, struct gw_import_sink *sink, const struct gw_smi_opts *opts,
                        struct gw_smi_result *res, struct gw_err *err) {
  memset(res, 0, sizeof *res);
  struct smi *s = gw_xcalloc(1, sizeof *s);
  struct lines r = {.in = in, .opts = opts};
  r.buf = gw_xcalloc(1, MAX_LINE_BYTES + READ_BYTES + 1);
  s->sink = sink;
  s->opts = opts;
  s->res = res;
  s->err = err;
  s->name = in->name;
  gw_status rc = GW_OK;
  char *line;
  /* header: the first non-empty line */
  while (!(rc = next_line(&r, &line, err)) && line && !*trim(line))
    ;
  if (!rc && !line) {
    gw_err_set(err, _("%s: empty file"), in->name);
    rc = GW_EINPUT;
  }
  if (rc)
    goto out;
  line = trim(line);
  s->kind = gw_smi_sniff(line, strlen(line));
  if (s->kind == GW_SMI_NONE) {
    rc = line_error(s, r.lineno,
                    _("expected an nvidia-smi dmon header (# gpu pwr ...) or a "
                      "--query-gpu CSV header (timestamp, "
                      "index, ...)"));
    goto out;
  }
  res->kind = s->kind;
  if ((rc = read_header(s, line, r.lineno)))
    goto out;
  if (s->kind == GW_SMI_DMON) {
    /* the units line */
    if ((rc = next_line(&r, &line, err)))
      goto out;
    if (!line || trim(line)[0] != '#') {
      rc = line_error(s, r.lineno, _("expected dmon's units line (# Idx W C ...) under the column names"));
      goto out;
    }
  }
  int64_t interval_ns = (int64_t)llround((opts->interval_s > 0 ? opts->interval_s : 1.0) * NS_PER_S);
  s->interval_ns = interval_ns;
  if (!s->has_times) {
    res->times_assumed = 1;
    if (opts->start_ns) {
      s->start_ns = opts->start_ns;
    } else {
      int64_t groups = 0;
      uint64_t header_lines = r.lineno;
      if ((rc = count_groups(s, &r, &groups)) || (rc = gw_input_rewind(in, err)))
        goto out;
      s->start_ns = opts->file_mtime_ns - (groups > 0 ? groups - 1 : 0) * interval_ns;
      if (s->start_ns < 0)
        s->start_ns = 0;
      r.len = r.pos = 0;
      r.eof = 0;
      r.lineno = 0;
      for (uint64_t k = 0; k < header_lines && !(rc = next_line(&r, &line, err)) && line;)
        k++;
      if (rc)
        goto out;
    }
  } else if (s->col_time >= 0 && s->col_date < 0) {
    /* midnight of the start day, local time */
    time_t t0 = (time_t)((opts->start_ns ? opts->start_ns : opts->file_mtime_ns) / NS_PER_S);
    struct tm tm;
    if (localtime_r(&t0, &tm)) {
      tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
      tm.tm_isdst = -1;
      s->day_base_ns = (int64_t)mktime(&tm) * NS_PER_S;
    }
    res->times_assumed = 1;
  }
  while (!(rc = next_line(&r, &line, err)) && line) {
    char *t = trim(line);
    if (!*t)
      continue;
    if (t[0] == '#') {
      /* dmon repeats its header now and then: it must be the same one */
      if (s->kind == GW_SMI_DMON && strchr(t + 1, 'I') == NULL && strcmp(t, trim(s->header_copy)) != 0 &&
          gw_smi_sniff(t, strlen(t)) == GW_SMI_DMON) {
        rc = line_error(s, r.lineno, _("the column header changed in the middle of the log"));
        goto out;
      }
      continue;
    }
    if (s->kind == GW_SMI_QUERY && strcmp(t, trim(s->header_copy)) == 0)
      continue; /* a second header from a restarted logger */
    res->lines++;
    if ((rc = data_row(s, t, r.lineno)))
      goto out;
  }
out:
  free(r.buf);
  free(s);
  return rc;
}
