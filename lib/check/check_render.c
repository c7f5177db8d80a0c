/* `gpuwhy check` output: a table for people (status, title, the reason with
 * its numbers, the fix) grouped by driver, GPU, kernel log and host; and one
 * JSON document for machines. Widths are fixed so output is reproducible. */
#include "check_internal.h"

#include <gpuwhy/report.h>
#include <math.h>
#include <string.h>

#include "core/json_write.h"
#include "render/renderer_formats.h"

#define TEXT_WIDTH 100
#define TITLE_WIDTH 22
#define TEXT_INDENT (2 + 4 + 2 + TITLE_WIDTH + 2)

/* How a status looks in the table. The labels are four columns wide in
 * every language (the translations are two CJK characters), so the table
 * keeps its shape. */
static const struct {
  const char *label, *colour;
} STATUS_LOOK[] = {
    [GW_CHECK_PASS] = {N_("PASS"), "\033[32m"},
    [GW_CHECK_NOTE] = {N_("NOTE"), "\033[36m"},
    [GW_CHECK_WARN] = {N_("WARN"), "\033[33m"},
    [GW_CHECK_FAIL] = {N_("FAIL"), "\033[1;31m"},
};

/* Terminal columns of the UTF-8 character at p; *len gets its bytes. */
static int char_width(const char *p, size_t *len) {
  unsigned char c = (unsigned char)*p;
  size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  char one[5];
  size_t i;
  for (i = 0; i < n && p[i]; i++)
    one[i] = p[i];
  one[i] = '\0';
  *len = i;
  return gw_text_width(one);
}

/* Chinese has no spaces between words: a line may break before or after a
 * double-width character, except before closing punctuation (，。）and the
 * like, or ASCII ",.;:)") and after opening punctuation (（「). */
static int closes(const char *p) {
  return strchr(",.;:)!?%]", *p) || (strncmp(p, "\xEF\xBC", 2) == 0 && strchr("\x8C\x9A\x9B\x89\x81\x9F", p[2])) ||
         strncmp(p, "\xE3\x80\x82", 3) == 0 || strncmp(p, "\xE3\x80\x81", 3) == 0 ||
         strncmp(p, "\xE3\x80\x8D", 3) == 0 || strncmp(p, "\xE3\x80\x8F", 3) == 0;
}
static int opens(const char *p) {
  return strchr("([", *p) || strncmp(p, "\xEF\xBC\x88", 3) == 0 || strncmp(p, "\xE3\x80\x8C", 3) == 0 ||
         strncmp(p, "\xE3\x80\x8E", 3) == 0;
}

/* The next unit a line may not break inside: up to a space, or up to a
 * break opportunity next to a double-width character. Returns its bytes;
 * *width gets its columns. */
static size_t next_unit(const char *p, int *width) {
  size_t len = 0, n;
  int w = char_width(p, &n);
  const char *prev = p;
  *width = w;
  len = n;
  int prev_wide = w == 2;
  while (p[len] && p[len] != ' ') {
    w = char_width(p + len, &n);
    if ((prev_wide || w == 2) && !closes(p + len) && !opens(prev))
      break;
    prev = p + len;
    prev_wide = w == 2;
    *width += w;
    len += n;
  }
  return len;
}

/* Print text word-wrapped: the first line continues the current one (which
 * is at column `column`), later lines start at `indent`. */
static void print_wrapped(FILE *out, const char *text, int column, int indent) {
  int col = column;
  const char *p = text;
  int first_word = 1;
  while (*p) {
    int spaced = *p == ' ';
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    int width;
    size_t len = next_unit(p, &width);
    int gap = spaced && !first_word;
    if (!first_word && col + gap + width > TEXT_WIDTH) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    } else if (gap) {
      fputc(' ', out);
      col++;
    }
    fwrite(p, 1, len, out);
    col += width;
    p += len;
    first_word = 0;
  }
  fputc('\n', out);
}

static void print_heading(FILE *out, const struct gw_check_report *r, const struct gw_check_item *it, int color) {
  const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
  if (it->gpu >= 0 && it->gpu < r->ngpus) {
    const struct gw_check_gpu *g = &r->gpus[it->gpu];
    fprintf(out, "\n%sGPU %d%s  %s  %s", bold, it->gpu, reset, g->name[0] ? g->name : _("(name unknown)"),
            g->pci_bus_id[0] ? g->pci_bus_id : _("(bus id unknown)"));
    if (g->mem_total_gib > 0)
      fprintf(out, "  %.1f GiB", g->mem_total_gib);
    fputc('\n', out);
    return;
  }
  const char *name = strcmp(it->group, "driver") == 0 ? _("Driver and CUDA")
                     : strcmp(it->group, "kmsg") == 0 ? _("Kernel log")
                     : strcmp(it->group, "host") == 0 ? _("Host")
                                                      : it->group;
  fprintf(out, "\n%s%s%s\n", bold, name, reset);
}

static void count_statuses(const struct gw_check_report *r, int counts[4]) {
  memset(counts, 0, 4 * sizeof counts[0]);
  for (int i = 0; i < r->nitems; i++)
    counts[r->items[i].status]++;
}

void gw_check_print_text(FILE *out, const struct gw_check_report *r, int color) {
  if (r->load_requested && r->load_ran)
    fprintf(out, _("gpuwhy check: driver, GPUs (under a %.0f s matmul load), kernel log and host\n"), r->load_s);
  else if (r->load_requested && r->ngpus > 0)
    fputs(_("gpuwhy check: driver, GPUs (the load could not run: idle readings), kernel log and host\n"), out);
  else
    fputs(_("gpuwhy check: driver, GPUs (idle; --load tests them under work), kernel log and host\n"), out);
  const char *last_group = "";
  int last_gpu = -2;
  for (int i = 0; i < r->nitems; i++) {
    const struct gw_check_item *it = &r->items[i];
    if (strcmp(it->group, last_group) != 0 || it->gpu != last_gpu) {
      print_heading(out, r, it, color);
      last_group = it->group;
      last_gpu = it->gpu;
    }
    fputs("  ", out);
    if (color)
      fputs(STATUS_LOOK[it->status].colour, out);
    gw_fputs_padded(out, _(STATUS_LOOK[it->status].label), 4);
    fputs(color ? "\033[0m  " : "  ", out);
    if (gw_text_width(it->title) > TITLE_WIDTH) {
      fprintf(out, "%s\n%*s", it->title, TEXT_INDENT, "");
    } else {
      gw_fputs_padded(out, it->title, TITLE_WIDTH);
      fputs("  ", out);
    }
    print_wrapped(out, it->reason[0] ? it->reason : "-", TEXT_INDENT, TEXT_INDENT);
    if (it->fix[0]) {
      /* TRANSLATORS: the label before what to do about an item. */
      const char *fix = _("fix: ");
      int fix_w = gw_text_width(fix);
      fprintf(out, "%*s%s", TEXT_INDENT, "", fix);
      print_wrapped(out, it->fix, TEXT_INDENT + fix_w, TEXT_INDENT + fix_w);
    }
  }
  int counts[4];
  count_statuses(r, counts);
  fputc('\n', out);
  fprintf(out, _("%d fail, %d warn, %d note, %d pass: exit status %d\n"), counts[GW_CHECK_FAIL], counts[GW_CHECK_WARN],
          counts[GW_CHECK_NOTE], counts[GW_CHECK_PASS], gw_check_exit_status(r));
}

/* Integers print without a fraction, the rest round-trip exactly;
 * not-a-number never reaches JSON. */
static void json_number(FILE *out, double v) {
  gw_json_write_number(out, v);
}

static void json_key(FILE *out, const char *key) {
  gw_json_write_string(out, key);
  fputs(": ", out);
}

/* "key": "text" and what follows it (the separator before the next key). */
static void json_text_member(FILE *out, const char *key, const char *text, const char *after) {
  json_key(out, key);
  gw_json_write_string(out, text);
  fputs(after, out);
}

void gw_check_print_json(FILE *out, const struct gw_check_report *r) {
  int counts[4];
  count_statuses(r, counts);
  fprintf(out, "{\n  \"schema\": \"gpuwhy.check/%d\",\n  \"schema_version\": %d,\n  \"exit_status\": %d,\n",
          GW_CHECK_JSON_SCHEMA_VERSION, GW_CHECK_JSON_SCHEMA_VERSION, gw_check_exit_status(r));
  fprintf(out, "  \"summary\": {\"pass\": %d, \"note\": %d, \"warn\": %d, \"fail\": %d},\n", counts[GW_CHECK_PASS],
          counts[GW_CHECK_NOTE], counts[GW_CHECK_WARN], counts[GW_CHECK_FAIL]);
  fprintf(out, "  \"load\": {\"requested\": %s, \"ran\": %s, \"seconds\": ", r->load_requested ? "true" : "false",
          r->load_ran ? "true" : "false");
  json_number(out, r->load_s);
  fputs("},\n  \"driver\": ", out);
  if (r->driver_version[0] || r->cuda_driver_version > 0) {
    fputs("{\"version\": ", out);
    gw_json_write_string(out, r->driver_version);
    if (r->cuda_driver_version > 0)
      fprintf(out, ", \"cuda\": \"%d.%d\"}", r->cuda_driver_version / 1000, (r->cuda_driver_version % 1000) / 10);
    else
      fputs(", \"cuda\": null}", out);
  } else {
    fputs("null", out);
  }
  fputs(",\n  \"gpus\": [", out);
  for (int g = 0; g < r->ngpus; g++) {
    const struct gw_check_gpu *gpu = &r->gpus[g];
    fprintf(out, "%s\n    {\"index\": %u, ", g ? "," : "", gpu->index);
    json_text_member(out, "name", gpu->name, ", ");
    json_text_member(out, "uuid", gpu->uuid, ", ");
    json_text_member(out, "pci_bus_id", gpu->pci_bus_id, ", ");
    json_key(out, "mem_total_gib");
    json_number(out, round(gpu->mem_total_gib * 10) / 10);
    fputc('}', out);
  }
  fputs(r->ngpus ? "\n  ],\n  \"items\": [" : "],\n  \"items\": [", out);
  for (int i = 0; i < r->nitems; i++) {
    const struct gw_check_item *it = &r->items[i];
    fprintf(out, "%s\n    {", i ? "," : "");
    json_text_member(out, "id", it->id, ", ");
    json_text_member(out, "group", it->group, ", ");
    json_key(out, "gpu");
    if (it->gpu >= 0)
      fprintf(out, "%d", it->gpu);
    else
      fputs("null", out);
    fputs(", ", out);
    /* the sentences one a line, under the item's first key */
    json_text_member(out, "status", gw_check_status_name(it->status), ",\n     ");
    json_text_member(out, "title", it->title, ",\n     ");
    json_text_member(out, "reason", it->reason, ",\n     ");
    json_text_member(out, "fix", it->fix, ",\n     ");
    json_key(out, "values");
    fputc('{', out);
    for (int v = 0; v < it->nvalues; v++) {
      if (v)
        fputs(", ", out);
      json_key(out, it->values[v].name);
      json_number(out, it->values[v].value);
    }
    fputs("}}", out);
  }
  fputs(r->nitems ? "\n  ]\n}\n" : "]\n}\n", out);
}

static void print_json(FILE *out, const struct gw_check_report *r, int color) {
  (void)color;
  gw_check_print_json(out, r);
}

/* check's renderers: a table for people and JSON for machines. */
static const struct check_renderer {
  enum gw_report_format format;
  void (*render)(FILE *out, const struct gw_check_report *r, int color);
} check_renderers[] = {
    {GW_REPORT_TEXT, gw_check_print_text},
    {GW_REPORT_JSON, print_json},
};

unsigned gw_check_formats(void) {
  return GW_RENDERER_TABLE_FORMATS(check_renderers);
}

int gw_check_print(FILE *out, const struct gw_check_report *r, int format, int color) {
  for (size_t i = 0; i < sizeof check_renderers / sizeof check_renderers[0]; i++)
    if ((int)check_renderers[i].format == format) {
      check_renderers[i].render(out, r, color);
      return 0;
    }
  return -1;
}
