/* libgpuwhy public API for `gpuwhy check`: the pre-flight checkup of the
 * driver, each GPU, the kernel log and the host, before anyone touches the
 * training code. Every item says pass / note / warn / fail, why (with the
 * numbers) and what to do. */
#ifndef GPUWHY_CHECK_H
#define GPUWHY_CHECK_H

#include <stddef.h>
#include <stdio.h>

/* Ordered by weight: the exit status follows the worst item. A note is
 * something worth knowing that needs no action (it exits 0 like a pass). */
enum gw_check_status { GW_CHECK_PASS = 0, GW_CHECK_NOTE = 1, GW_CHECK_WARN = 2, GW_CHECK_FAIL = 3 };

struct gw_check_opts {
  const char *root;     /* NULL, "" or "/": the live system; else a fixture root for /proc, /sys, /dev/kmsg */
  const char *nvml_lib; /* NULL: $GPUWHY_NVML_LIB, then the default search */
  int load;             /* run a short GPU load (PyTorch matmuls) while sampling */
  double load_s;        /* length of that load in seconds; 0 means 3 */
  /* Programs asked about the CUDA runtime and used for the load. NULL: the
   * environment ($GPUWHY_PYTHON, $GPUWHY_NVCC), else python3 and nvcc from
   * PATH on the live system; with a fixture root they are not run unless set. */
  const char *python;
  const char *nvcc;
  const char *data_dir; /* the directory whose disk is judged; NULL: the current directory */
  /* Word the items in English (for JSON, read by machines) instead of the
   * language of the messages: the items are worded when they are judged,
   * and the choice holds for the thread running gw_check_run alone, so the
   * process's locale is never switched. */
  int english;
};

/* A number behind an item, for machines ("sm_clock_mhz": 345). */
#define GW_CHECK_MAX_VALUES 10
struct gw_check_value {
  char name[40]; /* unit in the name */
  double value;
};

struct gw_check_item {
  char id[48];    /* stable: "driver.nvml", "gpu0.pcie_link", "kmsg.xid.79", "host.governor" */
  char group[16]; /* "driver", "gpu", "kmsg", "host" */
  int gpu;        /* NVML index, -1 when the item is not about one GPU */
  enum gw_check_status status;
  char title[96];
  char reason[1024]; /* what was seen, with numbers */
  char fix[640];     /* what to do; "" when nothing is needed */
  int nvalues;
  struct gw_check_value values[GW_CHECK_MAX_VALUES];
};

struct gw_check_gpu {
  unsigned index;
  char name[96];
  char uuid[96];
  char pci_bus_id[32];
  double mem_total_gib; /* 0 unknown */
};

struct gw_check_report {
  int nitems;
  struct gw_check_item *items;
  int ngpus;
  struct gw_check_gpu *gpus;
  char driver_version[80]; /* "" without a driver */
  int cuda_driver_version; /* 13000 for 13.0; 0 unknown */
  int load_requested, load_ran;
  double load_s;
};

/* Run every check. Returns GPUWHY_EXIT_OK with *out filled (even when items
 * fail: that is the report's business), or GPUWHY_EXIT_INPUT with the reason
 * in errbuf when the root directory cannot be used. */
int gw_check_run(const struct gw_check_opts *opts, struct gw_check_report **out, char *errbuf, size_t errcap);
void gw_check_free(struct gw_check_report *r);

/* 0 when every item passes or is a note, 1 when any warns, 2 when any fails. */
int gw_check_exit_status(const struct gw_check_report *r);

/* "pass", "note", "warn", "fail". */
const char *gw_check_status_name(enum gw_check_status s);

/* A table for people (ANSI colour when color is set) and JSON for machines. */
void gw_check_print_text(FILE *out, const struct gw_check_report *r, int color);
void gw_check_print_json(FILE *out, const struct gw_check_report *r);

/* The formats check renders (GW_FORMAT_BIT of enum gw_report_format), read
 * from its renderer table, and the rendering in one of them: returns 0, or
 * -1 for a format check does not render (nothing written). */
unsigned gw_check_formats(void);
int gw_check_print(FILE *out, const struct gw_check_report *r, int format, int color);

#endif
