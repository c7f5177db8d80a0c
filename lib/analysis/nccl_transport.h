/* NCCL's own account of how it connected the ranks: the NCCL_DEBUG=INFO
 * lines the recorder keeps in the nccl_log table (t_ns, pid, line). One line
 * at a time is parsed by a pure function (unit tests, fuzzing); the table is
 * folded into a per-rank summary: the NCCL version, the transport of every
 * channel connection, ring and tree setup, warnings and fallbacks, and the
 * NCCL_* settings of the run's env table. A slow path between GPUs that
 * could talk directly becomes advice on what to check. */
#ifndef GW_NCCL_TRANSPORT_H
#define GW_NCCL_TRANSPORT_H

#include <stdint.h>

#include "core/util.h"

/* Transports as NCCL names them after "via", fastest first within a kind. */
enum gw_nccl_transport {
  GW_NCCL_NVLS,       /* NVLink SHARP (NVSwitch multicast) */
  GW_NCCL_P2P_CUMEM,  /* P2P over cuMem handles (NVLink or PCIe) */
  GW_NCCL_P2P_IPC,    /* P2P between processes through CUDA IPC */
  GW_NCCL_P2P_DIRECT, /* P2P inside one process ("direct pointer") */
  GW_NCCL_P2P_OTHER,  /* another P2P variant */
  GW_NCCL_COLLNET,    /* in-network reduction (SHARP) */
  GW_NCCL_NET_IB_GDR, /* InfiniBand / RoCE with GPUDirect RDMA */
  GW_NCCL_SHM,        /* through host shared memory */
  GW_NCCL_NET_IB,     /* InfiniBand / RoCE staged through host memory */
  GW_NCCL_NET_OTHER,  /* a network plugin (OFI, ...) */
  GW_NCCL_NET_SOCKET, /* TCP sockets */
  GW_NCCL_UNKNOWN,
  GW_NCCL_NTRANSPORTS
};

/* Short stable name ("P2P/CUMEM", "NET/IB+GDR", ...): JSON and tables. */
const char *gw_nccl_transport_name(enum gw_nccl_transport t);
/* 1 when the transport copies through host memory or the kernel's network
 * stack: SHM, NET/IB without GPUDirect RDMA, sockets. */
int gw_nccl_transport_is_slow(enum gw_nccl_transport t);
/* Classify the text after "via" ("P2P/CUMEM/read", "NET/IB/3/GDRDMA"). */
enum gw_nccl_transport gw_nccl_classify_via(const char *via);

enum gw_nccl_line_kind {
  GW_NCCL_LINE_OTHER,      /* an NCCL line this parser does not need */
  GW_NCCL_LINE_NOT_NCCL,   /* no NCCL INFO / WARN marker */
  GW_NCCL_LINE_VERSION,    /* "NCCL version 2.21.5+cuda12.4" */
  GW_NCCL_LINE_COMM,       /* "comm 0x.. rank 0 nRanks 2 nNodes 1 ..." */
  GW_NCCL_LINE_CHANNEL,    /* "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" */
  GW_NCCL_LINE_NETWORK,    /* "Using network Socket" */
  GW_NCCL_LINE_RING,       /* "Ring 00 : 0 -> 1 -> 0" */
  GW_NCCL_LINE_TREE,       /* "Trees [0] ..." or "Tree 0 : ..." */
  GW_NCCL_LINE_ENV,        /* "NCCL_P2P_DISABLE set by environment to 1." */
  GW_NCCL_LINE_P2P_FAILED, /* "Could not enable P2P ...", "P2P is disabled ..." */
  GW_NCCL_LINE_NO_IB,      /* "NET/IB : No device found." */
  GW_NCCL_LINE_GDR_OFF,    /* "GPU Direct RDMA Disabled for ..." */
  GW_NCCL_LINE_NVLS,       /* "NVLS multicast support is available" or "N nvls channels" */
  GW_NCCL_LINE_WARN,       /* "NCCL WARN ..." */
};

/* One parsed line. Numbers unknown in the line are -1, strings "". */
struct gw_nccl_line {
  enum gw_nccl_line_kind kind;
  char host[64];
  int64_t pid, tid; /* from the "host:pid:tid" prefix */
  int cuda_dev;     /* the "[n]" after the prefix */
  /* VERSION */
  char version[32];
  /* COMM */
  int rank, nranks, nnodes, local_ranks, local_rank, nvml_dev;
  /* CHANNEL */
  int channel, src_rank, dst_rank;
  int direction; /* 0 none, 1 send, 2 receive */
  enum gw_nccl_transport transport;
  char via[64];
  /* NETWORK */
  char network[32];
  /* ENV: name and value; NVLS: nvls_channels (-1 when the line only says it is available) */
  char env_name[48], env_value[64];
  int nvls_channels;
  /* WARN (and P2P_FAILED): the message after the marker, trimmed */
  char text[200];
};

/* Parse one line (NUL-terminated, any bytes). Never fails: returns the kind
 * and fills *out. Pure: no I/O, no global state. */
enum gw_nccl_line_kind gw_nccl_parse_line(const char *line, struct gw_nccl_line *out);

/* Advice when NCCL took a slow path; its words through render/label_text.c's
 * gw_nccl_advice_text. */
enum gw_nccl_advice {
  GW_NCCL_ADV_SOCKET_ONE_NODE, /* sockets between GPUs of one machine */
  GW_NCCL_ADV_SHM_BETWEEN_GPUS,
  GW_NCCL_ADV_P2P_DISABLED, /* NCCL_P2P_DISABLE set, or NCCL could not enable P2P */
  GW_NCCL_ADV_SHM_DISABLED,
  GW_NCCL_ADV_IB_NO_GDR,    /* IB between nodes, staged through host memory */
  GW_NCCL_ADV_SOCKET_NODES, /* sockets between nodes */
  GW_NCCL_ADV_IB_DISABLED,  /* NCCL_IB_DISABLE set */
  GW_NCCL_ADV_WARNINGS,     /* NCCL WARN lines */
  GW_NCCL_NADVICE
};
/* The advice's stable id ("socket_one_node"); "" out of range. */
const char *gw_nccl_advice_id(enum gw_nccl_advice a);

#define GW_NCCL_MAX_RANKS 256
#define GW_NCCL_MAX_WARN 4

/* What one rank (process and CUDA device) reported. */
struct gw_nccl_rank {
  int node; /* which recording of a multi-node report (0 for one) */
  char host[64];
  int64_t pid;
  int cuda_dev, nvml_dev;
  int rank, nranks, nnodes, local_ranks; /* of its largest communicator; -1 unknown */
  int connections[GW_NCCL_NTRANSPORTS];  /* channel connections by transport */
  char network[32];
  int warnings;
};

struct gw_nccl_summary {
  int has_log; /* 0: no nccl_log table or no rows: "no NCCL log" */
  long lines, nccl_lines;
  char version[32];
  int nnodes; /* largest nNodes reported, -1 unknown */
  char network[32];
  int connections[GW_NCCL_NTRANSPORTS]; /* all ranks */
  int rings, trees, nvls_channels;      /* setup lines seen; nvls_channels -1 unknown */
  int p2p_failed_lines, no_ib_lines, gdr_off_lines;
  /* settings: -1 not set, else the value as a number (from the env table or "set by environment" lines) */
  int env_p2p_disable, env_shm_disable, env_ib_disable;
  char env_socket_ifname[64], env_ib_hca[64], env_p2p_level[32];
  int nwarnings;
  char warnings[GW_NCCL_MAX_WARN][200]; /* the first ones */
  int nranks_seen;
  struct gw_nccl_rank ranks[GW_NCCL_MAX_RANKS];
  unsigned char advice[GW_NCCL_NADVICE]; /* 1 when that advice applies */
};

/* Empty summary (has_log 0, numbers -1). */
void gw_nccl_summary_init(struct gw_nccl_summary *s);
/* Fold one line, logged by process pid (<= 0: take it from the prefix), into s. */
void gw_nccl_summary_add(struct gw_nccl_summary *s, int node, int64_t pid, const char *line);
/* Apply one environment setting of the run (NCCL_P2P_DISABLE, ...). */
void gw_nccl_summary_env(struct gw_nccl_summary *s, const char *name, const char *value);
/* Decide the advice from what was folded in; call after the last line. */
void gw_nccl_summary_finish(struct gw_nccl_summary *s);
/* Append b's ranks, counts and settings to a (multi-node reports), then finish a again. */
void gw_nccl_summary_merge(struct gw_nccl_summary *a, const struct gw_nccl_summary *b);

/* The slowest transport rank r used ("" when it logged no connection) as
 * "P2P/CUMEM" or "P2P/CUMEM+NET/IB" (every transport it used, fastest first). */
void gw_nccl_rank_transports(const struct gw_nccl_rank *r, char *out, size_t cap);
/* The rank entry for a GPU: node and pid of the process that ran kernels on
 * it (pid <= 0 unknown), its NVML index on that node. NULL when none matches. */
const struct gw_nccl_rank *gw_nccl_rank_for_gpu(const struct gw_nccl_summary *s, int node, int64_t pid, int nvml_index);

struct gw_store;
/* Fold the NCCL log and the run's NCCL_* settings of the recording open in
 * st (the store's iterators) into *out (initialised here, finished). A
 * recording without the log yields has_log 0 and GW_OK. */
GW_NODISCARD gw_status gw_nccl_read(struct gw_store *st, struct gw_nccl_summary *out, struct gw_err *err);

#endif
