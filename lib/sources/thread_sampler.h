/* Thread sampler: where each thread of the job is, many times a second.
 * For every thread of the job's processes (the list the host source keeps,
 * handed over with gw_thread_sampler_set_procs) it reads the state and CPU
 * time from /proc/PID/task/TID/stat and, when the thread is not running, the
 * system call it sits in (/proc/PID/task/TID/syscall), folded to a wait kind
 * (core/activity.h). Roles come from thread names and ancestry only.
 *
 * It runs on its own thread (gw_thread_sampler_start) and leaves its rows in
 * a fixed ring that the recorder's thread drains into the store: the ring
 * never blocks the sampler; a full ring drops rows and counts them. Every
 * read goes through a root directory so tests feed fixture trees ("" or "/"
 * is live: files kept open and re-read with pread). Fails open: a file it may
 * not read is skipped and said once (gw_thread_sampler_note). */
#ifndef GW_THREAD_SAMPLER_H
#define GW_THREAD_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/sample.h"
#include "../core/util.h"

struct gw_thread_sampler;

/* hz: samples per second of the threads that matter (main, autograd, loader
 * workers, pin-memory, NCCL); other threads every GW_THREAD_HELPER_EVERY-th. */
#define GW_THREAD_HELPER_EVERY 5
GW_NODISCARD gw_status gw_thread_sampler_open(struct gw_thread_sampler **out, const char *root, int hz,
                                              struct gw_err *err);
/* Stops the thread if started; NULL is fine. */
void gw_thread_sampler_close(struct gw_thread_sampler *s);

/* The job's processes (pid, ppid, comm), the first being the job's own
 * process: from the host source's sample, which walks the tree. Safe to call
 * from another thread than the sampler's; the sampler takes the list at its
 * next tick, and drops processes no longer listed. */
void gw_thread_sampler_set_procs(struct gw_thread_sampler *s, const struct gw_proc_sample *procs, int n);

/* One sample of every thread due at this tick (tests call it directly; the
 * thread calls it hz times a second). Task lists are re-read once a second
 * (every hz-th tick) and when the process list changed. */
void gw_thread_sampler_tick(struct gw_thread_sampler *s, int64_t t_ns);

/* Runs gw_thread_sampler_tick hz times a second on a thread of its own. */
GW_NODISCARD gw_status gw_thread_sampler_start(struct gw_thread_sampler *s, struct gw_err *err);
void gw_thread_sampler_stop(struct gw_thread_sampler *s);
/* CPU time the sampler's thread used so far (ns), -1 when it has none. */
int64_t gw_thread_sampler_cpu_ns(struct gw_thread_sampler *s);

/* What the ring carries: a thread seen for the first time (or renamed: its
 * role may change, e.g. a forked worker that names itself pt_data_worker),
 * or one sample of one thread. */
enum gw_thread_row_kind { GW_THREAD_ROW_INFO = 1, GW_THREAD_ROW_SAMPLE = 2 };
struct gw_thread_row {
  int64_t t_ns;   /* INFO: when the thread was first seen */
  int64_t cpu_ns; /* SAMPLE: cumulative utime+stime; -1 unknown */
  int32_t tid, pid;
  int16_t syscall; /* SAMPLE: the number in /proc/.../syscall; -1 running, not in one, or unreadable */
  uint8_t kind;    /* enum gw_thread_row_kind */
  uint8_t state;   /* SAMPLE: enum gw_thread_state */
  uint8_t wait;    /* SAMPLE: enum gw_wait_kind */
  uint8_t role;    /* INFO: enum gw_thread_role */
  char comm[16];   /* INFO */
};

/* Rows waiting in the ring, oldest first, at most max; call from one thread only. */
size_t gw_thread_sampler_drain(struct gw_thread_sampler *s, struct gw_thread_row *rows, size_t max);
/* Rows dropped because the ring was full. */
uint64_t gw_thread_sampler_dropped(struct gw_thread_sampler *s);
/* Why sampling is partial ("" when it is not): the first unreadable file,
 * for the recording's meta thread_sampling_note. Copied into out. */
void gw_thread_sampler_note(struct gw_thread_sampler *s, char *out, size_t cap);

/* ---- pure parts, exposed for tests ---- */

/* /proc/PID/task/TID/syscall: "running" -> 1; "NR a1 .. a6 sp pc" -> 0 with
 * *nr and *arg0 (the first argument: an fd for read/recv/ioctl); "-1 sp pc"
 * (blocked outside a system call) -> 0 with *nr = -1; else -1. */
int gw_parse_syscall_line(const char *text, long *nr, uint64_t *arg0);

/* What an fd points at, from its /proc/PID/fd/N link text. */
enum gw_fd_kind { GW_FD_UNKNOWN = 0, GW_FD_SOCKET, GW_FD_PIPE, GW_FD_FILE, GW_FD_NVIDIA, GW_FD_OTHER };
enum gw_fd_kind gw_fd_kind_of_link(const char *link);
/* 1 when system call nr writes to a file system (write, fsync, rename,
 * unlink ...): a disk wait in it is a save, not a read. The numbers are the
 * machine's, as the recorder stores them. */
int gw_syscall_writes_files(long nr);
/* 1 when the wait kind of system call nr depends on what its first argument's fd is. */
int gw_syscall_waits_on_fd(long nr);
/* The wait kind of a thread in state (the stat letter) inside system call nr
 * (-1: none) on an fd of kind fd (GW_FD_UNKNOWN when not looked up). */
int gw_wait_kind_of_syscall(char state, long nr, enum gw_fd_kind fd);
/* The wait kind from the kernel function a thread sleeps in (/proc/.../wchan). */
int gw_wait_kind_of_wchan(char state, const char *wchan);
int gw_thread_state_of(char state);

/* What a process of the job is, from its name and command line and its parent's. */
enum gw_proc_kind {
  GW_PROC_OTHER = 0,    /* not Python: a shell, a decoder binary */
  GW_PROC_PYTHON,       /* a Python process: a rank, or the job itself */
  GW_PROC_WORKER,       /* a DataLoader worker */
  GW_PROC_PY_AUXILIARY, /* torchrun, multiprocessing's resource tracker or fork server */
};
/* cmdline: the raw /proc/PID/cmdline bytes (NUL-separated), len bytes; the
 * parent's likewise (NULL when the parent is not in the job). */
int gw_proc_kind_of(const char *comm, const char *cmdline, size_t len, const char *parent_cmdline, size_t parent_len);
/* The role of a thread named comm; is_main: its tid is its process's pid. */
int gw_thread_role_of(const char *comm, int is_main, int proc_kind);

#endif
