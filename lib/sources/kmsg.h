/* Kernel-log source: NVRM and Xid lines from /dev/kmsg (history since boot,
 * then followed without blocking), and the Xid code table. */
#ifndef GW_KMSG_H
#define GW_KMSG_H

#include "../core/sample.h"
#include "../core/util.h"

struct gw_kmsg;

/* Open root/dev/kmsg non-blocking. from_boot: replay history first.
 * Returns GW_ENOTSUP with a reason when it cannot be read (dmesg_restrict). */
GW_NODISCARD gw_status gw_kmsg_open(struct gw_kmsg **out, const char *root, int from_boot, struct gw_err *err);
void gw_kmsg_close(struct gw_kmsg *k);

/* Read every record available now and emit an event for each NVRM/Xid line.
 * Never blocks. Returns the number of events emitted, -1 on a read error. */
int gw_kmsg_poll(struct gw_kmsg *k, const struct gw_event_sink *events);

/* A parsed kmsg record. */
struct gw_kmsg_record {
  int priority; /* 0..7 */
  uint64_t seq;
  uint64_t t_mono_us;  /* CLOCK_MONOTONIC microseconds since boot */
  const char *message; /* points into the caller's buffer, NUL-terminated, continuation lines cut */
};
/* Parse one raw /dev/kmsg record "prio,seq,ts,flags;message\n KEY=v". The
 * buffer is modified in place and must have room for len + 1 bytes (a NUL is
 * written at raw[len] when no newline ends the record). 0 or -1 with err. */
int gw_kmsg_parse_record(char *raw, size_t len, struct gw_kmsg_record *out, struct gw_err *err);

struct gw_xid {
  int xid;            /* -1 when the line is NVRM but not an Xid */
  char pci[32];       /* "0000:10:1c" as printed, "" unknown */
  int pid;            /* 0 unknown */
  char name[64];      /* process name, "" unknown */
  const char *detail; /* text after the header, points into the message */
};
/* Parse "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, name=python, ..." and the
 * older forms. Returns 1 for an Xid line, 0 for another NVRM line, -1 for a
 * line that is not from NVRM. */
int gw_parse_xid_line(const char *message, struct gw_xid *out);

/* Xid table: mnemonic, what it means and what to do, for the known codes. */
struct gw_xid_info {
  int xid;
  const char *mnemonic;
  const char *meaning;
  const char *action;
  int severity; /* 0 application fault, 1 warning, 2 needs a GPU reset or hardware service */
};
/* Returns the entry for xid, or NULL when it is not in the table. */
const struct gw_xid_info *gw_xid_lookup(int xid);
/* 1 when the code is a fault a program causes on a healthy GPU (a bad memory
 * access, an exception, being killed), 0 when it points at the hardware. */
int gw_xid_is_program_fault(int xid);

#endif
