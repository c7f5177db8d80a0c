/* libgpuwhy public API for `gpuwhy report` and `gpuwhy explain`. */
#ifndef GPUWHY_REPORT_H
#define GPUWHY_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* A format compiled in from outside the product (GW_EXTRA_REPORT_FORMATS,
 * lib/render/report_file.c) takes the values from GW_REPORT_EXTRA_FIRST on. */
enum gw_report_format { GW_REPORT_TEXT, GW_REPORT_JSON, GW_REPORT_MD, GW_REPORT_HTML, GW_REPORT_EXTRA_FIRST };

struct gw_report_opts {
  enum gw_report_format format;
  int color; /* text only: ANSI colour (the CLI sets it for a terminal without NO_COLOR) */
  /* several files: join them even when nothing shows they are one job
   * (report --same-job); without it unrelated recordings are refused */
  int same_job;
};

/* "text", "json", "md", "html" -> format. Returns 0, or -1 for an unknown name. */
int gw_report_format_from_name(const char *name, enum gw_report_format *out);

/* The formats one command renders, as a set of GW_FORMAT_BIT(format): each
 * command reads it from its own renderer table (gw_report_formats,
 * gw_compare_formats, gw_baseline_formats, gw_sweep_formats, gw_check_formats). */
#define GW_FORMAT_BIT(f) (1u << (unsigned)(f))
unsigned gw_report_formats(void);
/* The format named name, when it is one of have: returns 0 with *out set;
 * else -1 with the names of the formats in have ("text, json, md") in list. */
int gw_format_pick(unsigned have, const char *name, enum gw_report_format *out, char *list, size_t listcap);
/* The names of the formats in have, comma separated. */
void gw_format_list(unsigned have, char *list, size_t listcap);

/* Analyse the recording at path and write the report to out.
 * Returns 0 (GPUWHY_EXIT_OK) or 3 (GPUWHY_EXIT_INPUT: unreadable or not a
 * recording) with the reason in errbuf. */
int gw_report_file(const char *path, const struct gw_report_opts *opts, FILE *out, char *errbuf, size_t errcap);

/* The same for one recording per node of a multi-node job, reported
 * together: GPUs labelled by host and index, the multi-GPU summary across
 * all of them. npaths == 1 is exactly gw_report_file. */
int gw_report_files(const char *const *paths, int npaths, const struct gw_report_opts *opts, FILE *out, char *errbuf,
                    size_t errcap);

/* Print the quick-reference table of the bottleneck classes, or one class in
 * full. Returns 0, or -1 when class_id names no class. */
int gw_explain(FILE *out, const char *class_id);

/* The id of the i-th bottleneck class in the registry, or NULL past the last. */
const char *gw_class_id_at(int i);

#endif
