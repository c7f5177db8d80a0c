/* The thread sampler: /proc parsing, the folding of system calls into wait
 * kinds, roles from names and ancestry, one pass over a fixture tree
 * (tests/fixtures/proc/thread_tree, see the README there), a live child
 * with a thread asleep in a futex and one spinning, and the store's
 * thread tables through the loader (old recordings load with none). */
#include <sqlite3.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/activity.h"
#include "sources/thread_sampler.h"
#include "store/store.h"
#include "store/store_load.h"
#include "support_fixtures.h"
#include "support_tmp_files.h"
#include "support_test_main.h"

/* ---- pure parts ---- */

static void test_names(void **state) {
  (void)state;
  assert_string_equal(gw_thread_state_name(GW_TSTATE_DISK), "disk");
  assert_string_equal(gw_thread_state_name(99), "unknown");
  assert_string_equal(gw_thread_role_name(GW_TROLE_LOADER_WORKER), "loader_worker");
  assert_string_equal(gw_thread_role_name(GW_TROLE_HELPER), "helper");
  assert_string_equal(gw_wait_kind_name(GW_WAIT_GPU), "gpu");
  assert_string_equal(gw_wait_kind_name(-1), "other");
  assert_string_equal(gw_py_activity_name(GW_PYACT_FORWARD_BACKWARD), "forward_backward");
  assert_string_equal(gw_py_activity_name(GW_PYACT_IDLE), "idle");
  assert_string_equal(gw_py_activity_name(GW_PYACT_COUNT), "other");
}

static void test_parse_syscall_line(void **state) {
  (void)state;
  long nr;
  uint64_t arg0;
  assert_int_equal(gw_parse_syscall_line("running\n", &nr, &arg0), 1);
  assert_int_equal(gw_parse_syscall_line("202 0x7f2a1c000b50 0x80 0x0 0x0 0x0 0x0 0x7ffd 0x7f2a\n", &nr, &arg0), 0);
  assert_int_equal(nr, 202);
  assert_true(arg0 == 0x7f2a1c000b50ull);
  assert_int_equal(gw_parse_syscall_line("45 0x7 0x7f2a10000b70 0x10000 0x0 0x0 0x0 0x1 0x2\n", &nr, &arg0), 0);
  assert_int_equal(nr, 45);
  assert_int_equal((int)arg0, 7);
  assert_int_equal(gw_parse_syscall_line("-1 0x7f29f77fd9e0 0x7f2a2b2a149c\n", &nr, &arg0), 0);
  assert_int_equal(nr, -1);
  /* damage: never a number out of nothing */
  assert_int_equal(gw_parse_syscall_line("", &nr, &arg0), -1);
  assert_int_equal(gw_parse_syscall_line("futex 0x1", &nr, &arg0), -1);
  assert_int_equal(gw_parse_syscall_line("99999 0x1", &nr, &arg0), -1);
  assert_int_equal(gw_parse_syscall_line("12", &nr, &arg0), -1); /* a call without its arguments */
  assert_int_equal(gw_parse_syscall_line(NULL, &nr, &arg0), -1);
}

static void test_fd_kinds(void **state) {
  (void)state;
  assert_int_equal(gw_fd_kind_of_link("socket:[41301]"), GW_FD_SOCKET);
  assert_int_equal(gw_fd_kind_of_link("pipe:[41237]"), GW_FD_PIPE);
  assert_int_equal(gw_fd_kind_of_link("/dev/nvidiactl"), GW_FD_NVIDIA);
  assert_int_equal(gw_fd_kind_of_link("/dev/nvidia-uvm"), GW_FD_NVIDIA);
  assert_int_equal(gw_fd_kind_of_link("/data/shard-00017.bin"), GW_FD_FILE);
  assert_int_equal(gw_fd_kind_of_link("/dev/pts/3"), GW_FD_OTHER);
  assert_int_equal(gw_fd_kind_of_link("anon_inode:[eventfd]"), GW_FD_OTHER);
  assert_int_equal(gw_fd_kind_of_link(""), GW_FD_UNKNOWN);
}

/* The build machine's numbers, so the folding is checked on any architecture. */
static void test_wait_folding(void **state) {
  (void)state;
  assert_int_equal(gw_wait_kind_of_syscall('R', SYS_futex, GW_FD_UNKNOWN), GW_WAIT_NONE);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_futex, GW_FD_UNKNOWN), GW_WAIT_FUTEX);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_ppoll, GW_FD_UNKNOWN), GW_WAIT_POLL);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_epoll_pwait, GW_FD_UNKNOWN), GW_WAIT_POLL);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_clock_nanosleep, GW_FD_UNKNOWN), GW_WAIT_SLEEP);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_recvfrom, GW_FD_UNKNOWN), GW_WAIT_NET);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_recvmsg, GW_FD_SOCKET), GW_WAIT_NET);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_read, GW_FD_SOCKET), GW_WAIT_NET);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_read, GW_FD_PIPE), GW_WAIT_PIPE);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_write, GW_FD_PIPE), GW_WAIT_PIPE);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_pread64, GW_FD_FILE), GW_WAIT_DISK);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_read, GW_FD_OTHER), GW_WAIT_OTHER);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_openat, GW_FD_UNKNOWN), GW_WAIT_DISK);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_ioctl, GW_FD_NVIDIA), GW_WAIT_GPU);
  assert_int_equal(gw_wait_kind_of_syscall('D', SYS_ioctl, GW_FD_NVIDIA), GW_WAIT_GPU);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_ioctl, GW_FD_OTHER), GW_WAIT_OTHER);
  assert_int_equal(gw_wait_kind_of_syscall('D', SYS_futex, GW_FD_UNKNOWN), GW_WAIT_DISK);
  assert_int_equal(gw_wait_kind_of_syscall('D', -1, GW_FD_UNKNOWN), GW_WAIT_DISK);
  assert_int_equal(gw_wait_kind_of_syscall('S', -1, GW_FD_UNKNOWN), GW_WAIT_OTHER);
  assert_int_equal(gw_wait_kind_of_syscall('S', SYS_wait4, GW_FD_UNKNOWN), GW_WAIT_OTHER);
  assert_true(gw_syscall_waits_on_fd(SYS_read));
  assert_true(gw_syscall_waits_on_fd(SYS_ioctl));
  assert_false(gw_syscall_waits_on_fd(SYS_futex));
  assert_false(gw_syscall_waits_on_fd(-1));

  assert_int_equal(gw_wait_kind_of_wchan('S', "futex_wait_queue"), GW_WAIT_FUTEX);
  assert_int_equal(gw_wait_kind_of_wchan('S', "do_epoll_wait"), GW_WAIT_POLL);
  assert_int_equal(gw_wait_kind_of_wchan('S', "pipe_read"), GW_WAIT_PIPE);
  assert_int_equal(gw_wait_kind_of_wchan('S', "sk_wait_data"), GW_WAIT_NET);
  assert_int_equal(gw_wait_kind_of_wchan('S', "hrtimer_nanosleep"), GW_WAIT_SLEEP);
  assert_int_equal(gw_wait_kind_of_wchan('D', "folio_wait_bit_common"), GW_WAIT_DISK);
  assert_int_equal(gw_wait_kind_of_wchan('S', "0"), GW_WAIT_OTHER);
  assert_int_equal(gw_wait_kind_of_wchan('R', "0"), GW_WAIT_NONE);

  assert_int_equal(gw_thread_state_of('R'), GW_TSTATE_RUNNING);
  assert_int_equal(gw_thread_state_of('S'), GW_TSTATE_SLEEPING);
  assert_int_equal(gw_thread_state_of('D'), GW_TSTATE_DISK);
  assert_int_equal(gw_thread_state_of('t'), GW_TSTATE_STOPPED);
  assert_int_equal(gw_thread_state_of('Z'), GW_TSTATE_OTHER);
}

#define CMD(s) s, sizeof s - 1

static void test_roles(void **state) {
  (void)state;
  static const char rank[] = "python3\0train.py\0";
  static const char other_rank[] = "/usr/bin/python3\0-u\0train.py\0--local-rank=1\0";
  /* processes */
  assert_int_equal(gw_proc_kind_of("python3", CMD(rank), NULL, 0), GW_PROC_PYTHON);
  assert_int_equal(gw_proc_kind_of("pt_main_thread", CMD(rank), NULL, 0), GW_PROC_PYTHON);
  assert_int_equal(gw_proc_kind_of("train.py", CMD(other_rank), NULL, 0), GW_PROC_PYTHON); /* argv[0] */
  assert_int_equal(gw_proc_kind_of("pt_data_worker", CMD(rank), NULL, 0), GW_PROC_WORKER);
  assert_int_equal(gw_proc_kind_of("python3", CMD(rank), CMD(rank)), GW_PROC_WORKER);       /* a fork */
  assert_int_equal(gw_proc_kind_of("python3", CMD(other_rank), CMD(rank)), GW_PROC_PYTHON); /* a launched rank */
  assert_int_equal(gw_proc_kind_of("torchrun", CMD("/usr/bin/python3\0/usr/bin/torchrun\0train.py\0"), NULL, 0),
                   GW_PROC_PY_AUXILIARY);
  assert_int_equal(
      gw_proc_kind_of("python3", CMD("python3\0-c\0from multiprocessing.resource_tracker import main\0"), CMD(rank)),
      GW_PROC_PY_AUXILIARY);
  assert_int_equal(gw_proc_kind_of("bash", CMD("bash\0-c\0x\0"), CMD(rank)), GW_PROC_OTHER);
  assert_int_equal(gw_proc_kind_of("decoder", NULL, 0, NULL, 0), GW_PROC_OTHER);
  /* threads */
  assert_int_equal(gw_thread_role_of("python3", 1, GW_PROC_PYTHON), GW_TROLE_MAIN);
  assert_int_equal(gw_thread_role_of("pt_data_worker", 1, GW_PROC_WORKER), GW_TROLE_LOADER_WORKER);
  assert_int_equal(gw_thread_role_of("torchrun", 1, GW_PROC_PY_AUXILIARY), GW_TROLE_HELPER);
  assert_int_equal(gw_thread_role_of("bash", 1, GW_PROC_OTHER), GW_TROLE_HELPER);
  assert_int_equal(gw_thread_role_of("pt_autograd_0", 0, GW_PROC_PYTHON), GW_TROLE_AUTOGRAD);
  assert_int_equal(gw_thread_role_of("pt_data_pin", 0, GW_PROC_PYTHON), GW_TROLE_PIN_MEMORY);
  assert_int_equal(gw_thread_role_of("pt_pin_memory", 0, GW_PROC_PYTHON), GW_TROLE_PIN_MEMORY);
  assert_int_equal(gw_thread_role_of("NCCL Service 0", 0, GW_PROC_PYTHON), GW_TROLE_NCCL);
  assert_int_equal(gw_thread_role_of("ncclProxy", 0, GW_PROC_PYTHON), GW_TROLE_NCCL);
  assert_int_equal(gw_thread_role_of("python3", 0, GW_PROC_PYTHON), GW_TROLE_HELPER);
  /* a busy-looking name decides nothing: only names and ancestry count */
  assert_int_equal(gw_thread_role_of("pt_data_worker", 0, GW_PROC_PYTHON), GW_TROLE_HELPER);
}

/* ---- the fixture tree ---- */

#define MAX_ROWS 256

struct seen {
  int role, samples[4]; /* samples per tick */
  struct gw_thread_row first;
  char comm[16];
};

static int tid_index(int tid) {
  static const int tids[] = {2000, 2010, 2011, 2012, 2013, 2014, 2001, 2002, 2003, 2004};
  for (int i = 0; i < 10; i++)
    if (tids[i] == tid)
      return i;
  return -1;
}

static void test_fixture_tree(void **state) {
  (void)state;
  char root[1024];
  support_fixture_path(root, sizeof root, "proc/thread_tree");
  struct gw_thread_sampler *s;
  struct gw_err err = {{0}};
  assert_int_equal(gw_thread_sampler_open(&s, root, 20, &err), GW_OK);
  struct gw_proc_sample rank = {.pid = 2000, .ppid = 1999, .comm = "python3"};
  gw_thread_sampler_set_procs(s, &rank, 1);
  for (int k = 1; k <= 3; k++)
    gw_thread_sampler_tick(s, k * 1000000000LL);
  struct gw_thread_row rows[MAX_ROWS];
  size_t n = gw_thread_sampler_drain(s, rows, MAX_ROWS);
  assert_int_equal(gw_thread_sampler_drain(s, rows + n, MAX_ROWS - n), 0); /* drained */
  struct seen seen[10];
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < 10; i++)
    seen[i].role = -1;
  for (size_t i = 0; i < n; i++) {
    int k = tid_index(rows[i].tid);
    assert_true(k >= 0);
    if (rows[i].kind == GW_THREAD_ROW_INFO) {
      seen[k].role = rows[i].role;
      memcpy(seen[k].comm, rows[i].comm, sizeof seen[k].comm);
      continue;
    }
    assert_int_equal(rows[i].kind, GW_THREAD_ROW_SAMPLE);
    int tick = (int)(rows[i].t_ns / 1000000000LL);
    assert_true(tick >= 1 && tick <= 3);
    if (!seen[k].samples[1] && !seen[k].samples[2] && !seen[k].samples[3])
      seen[k].first = rows[i];
    seen[k].samples[tick]++;
  }
  /* roles from names and ancestry (the children found through 2000's children file) */
  static const int want_role[10] = {GW_TROLE_MAIN,   GW_TROLE_AUTOGRAD, GW_TROLE_PIN_MEMORY,    GW_TROLE_NCCL,
                                    GW_TROLE_HELPER, GW_TROLE_HELPER,   GW_TROLE_LOADER_WORKER, GW_TROLE_LOADER_WORKER,
                                    GW_TROLE_HELPER, GW_TROLE_HELPER};
  for (int i = 0; i < 10; i++)
    assert_int_equal(seen[i].role, want_role[i]);
  assert_string_equal(seen[3].comm, "NCCL Service 0");
  assert_string_equal(seen[6].comm, "pt_data_worker");
  /* tick 1 (index 0): every thread of 2000, helpers too; the children are
   * scanned from tick 2 on; helpers come back every fifth tick only, once
   * read to learn their role */
  static const int want_samples[10][4] = {{0, 1, 1, 1}, {0, 1, 1, 1}, {0, 1, 1, 1}, {0, 1, 1, 1}, {0, 1, 0, 0},
                                          {0, 1, 0, 0}, {0, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 0}, {0, 0, 1, 0}};
  for (int i = 0; i < 10; i++)
    for (int t = 1; t <= 3; t++)
      assert_int_equal(seen[i].samples[t], want_samples[i][t]);
  /* states and CPU time: (utime + stime) ticks in ns */
  long tck = sysconf(_SC_CLK_TCK);
  static const int want_state[10] = {GW_TSTATE_SLEEPING, GW_TSTATE_RUNNING,  GW_TSTATE_SLEEPING, GW_TSTATE_SLEEPING,
                                     GW_TSTATE_DISK,     GW_TSTATE_SLEEPING, GW_TSTATE_SLEEPING, GW_TSTATE_SLEEPING,
                                     GW_TSTATE_SLEEPING, GW_TSTATE_SLEEPING};
  static const int64_t want_ticks[10] = {180, 432, 8, 2, 11, 0, 100, 100, 0, 0};
  for (int i = 0; i < 10; i++) {
    assert_int_equal(seen[i].first.state, want_state[i]);
    assert_int_equal(seen[i].first.cpu_ns, want_ticks[i] * (1000000000LL / tck));
  }
  /* the shell's syscall file is missing: its wait from wchan, its call unknown, said once */
  assert_int_equal(seen[9].first.wait, GW_WAIT_PIPE);
  assert_int_equal(seen[9].first.syscall, -1);
  char note[256];
  gw_thread_sampler_note(s, note, sizeof note);
  assert_non_null(strstr(note, "process 2004"));
  assert_int_equal(seen[1].first.wait, GW_WAIT_NONE); /* running */
  assert_int_equal(seen[1].first.syscall, -1);
  assert_int_equal(seen[4].first.wait, GW_WAIT_DISK); /* D, outside a call */
  assert_int_equal(seen[4].first.syscall, -1);
#if defined(__x86_64__)
  /* the fixture's numbers are x86_64's */
  static const int want_wait[9] = {GW_WAIT_FUTEX, GW_WAIT_NONE, GW_WAIT_PIPE, GW_WAIT_POLL, GW_WAIT_DISK,
                                   GW_WAIT_GPU,   GW_WAIT_NET,  GW_WAIT_DISK, GW_WAIT_PIPE};
  static const int want_nr[9] = {202, -1, 0, 7, -1, 16, 45, 0, 0};
  for (int i = 0; i < 9; i++) {
    assert_int_equal(seen[i].first.wait, want_wait[i]);
    assert_int_equal(seen[i].first.syscall, want_nr[i]);
  }
#endif
  assert_int_equal(gw_thread_sampler_dropped(s), 0);
  gw_thread_sampler_close(s);
}

/* ---- a live child: one thread asleep on a condition variable, one spinning ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *futex_waiter(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "futex_waiter");
  pthread_mutex_lock(&lock);
  for (;;)
    pthread_cond_wait(&never, &lock);
  return NULL;
}

static void *spinner(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "spinner");
  volatile uint64_t x = 0;
  for (;;)
    x++;
  return NULL;
}

/* A sampler of the real /proc watching one child process of this test. */
static struct gw_thread_sampler *sampler_of_child(pid_t child) {
  struct gw_thread_sampler *s = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_thread_sampler_open(&s, "", 20, &err), GW_OK);
  struct gw_proc_sample p = {.pid = child, .ppid = getpid(), .comm = "test_thread_sam"};
  gw_thread_sampler_set_procs(s, &p, 1);
  return s;
}

static void test_live_futex_and_spin(void **state) {
  (void)state;
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    pthread_t a, b;
    pthread_create(&a, NULL, futex_waiter, NULL);
    pthread_create(&b, NULL, spinner, NULL);
    struct timespec settle = {0, 50000000};
    nanosleep(&settle, NULL); /* both named and in place */
    char c = 1;
    if (write(ready[1], &c, 1) != 1)
      _exit(1);
    pthread_join(a, NULL);
    _exit(0);
  }
  close(ready[1]);
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1);
  close(ready[0]);

  struct gw_thread_sampler *s = sampler_of_child(child);
  struct gw_err err = {{0}};
  assert_int_equal(gw_thread_sampler_start(s, &err), GW_OK);
  /* past the first second, so that the cheap reads (schedstat, then the
   * system call only if the thread ran) give the samples after it */
  struct timespec run = {1, 500000000};
  nanosleep(&run, NULL);
  assert_true(gw_thread_sampler_cpu_ns(s) >= 0);
  gw_thread_sampler_stop(s);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);

  static struct gw_thread_row rows[4096];
  size_t n = gw_thread_sampler_drain(s, rows, 4096);
  int waiter_tid = 0, spinner_tid = 0;
  for (size_t i = 0; i < n; i++)
    if (rows[i].kind == GW_THREAD_ROW_INFO) {
      if (strcmp(rows[i].comm, "futex_waiter") == 0)
        waiter_tid = rows[i].tid;
      if (strcmp(rows[i].comm, "spinner") == 0)
        spinner_tid = rows[i].tid;
      assert_int_equal(rows[i].pid, child);
      /* a C program: no Python process, so no main thread among them */
      assert_int_equal(rows[i].role, GW_TROLE_HELPER);
    }
  assert_true(waiter_tid > 0 && spinner_tid > 0);
  int waiter_n = 0, waiter_futex = 0, spinner_n = 0, spinner_running = 0;
  for (size_t i = 0; i < n; i++) {
    if (rows[i].kind != GW_THREAD_ROW_SAMPLE)
      continue;
    if (rows[i].tid == waiter_tid) {
      waiter_n++;
      waiter_futex +=
          rows[i].state == GW_TSTATE_SLEEPING && rows[i].wait == GW_WAIT_FUTEX && rows[i].syscall == SYS_futex;
    } else if (rows[i].tid == spinner_tid) {
      spinner_n++;
      spinner_running += rows[i].state == GW_TSTATE_RUNNING && rows[i].wait == GW_WAIT_NONE;
    }
  }
  /* helpers are read every fifth tick: 30 ticks in 1.5 s give at least 5 */
  assert_true(waiter_n >= 5);
  assert_int_equal(waiter_futex, waiter_n);
  assert_true(spinner_n >= 5);
  assert_int_equal(spinner_running, spinner_n); /* runnable or running: R either way */
  gw_thread_sampler_close(s);
}

/* A thread that ends is forgotten with every descriptor the sampler holds for
 * it, and only those: a field left at 0 once closed fd 0 from under its
 * owner, then whatever the process opened next there (the host source's kept
 * /proc/PID/stat, so a worker's exit went unseen). */
static void test_live_closes_only_its_fds(void **state) {
  (void)state;
  /* fds 0..15 as they are, fd 0 made an open file whatever ctest gave */
  int null_fd = open("/dev/null", O_RDONLY);
  assert_true(null_fd >= 0);
  int saved0 = dup(0);
  assert_true(saved0 >= 0);
  assert_int_equal(dup2(null_fd, 0), 0);
  struct stat before[16];
  int open_before[16];
  for (int fd = 0; fd < 16; fd++)
    open_before[fd] = fstat(fd, &before[fd]) == 0;

  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    close(go[1]);
    char c;
    _exit(read(go[0], &c, 1) == 1 ? 0 : 1); /* ends when told */
  }
  close(go[0]);
  struct gw_thread_sampler *s = sampler_of_child(child);
  int64_t t_ns = 1000;
  for (int k = 0; k < 3; k++) /* its thread found and read */
    gw_thread_sampler_tick(s, t_ns += 50000000);
  char c = 1;
  assert_int_equal(write(go[1], &c, 1), 1);
  close(go[1]);
  waitpid(child, NULL, 0);
  for (int k = 0; k < 40; k++) /* its reads fail, then a rescan forgets it */
    gw_thread_sampler_tick(s, t_ns += 50000000);
  gw_thread_sampler_close(s);

  for (int fd = 0; fd < 16; fd++) {
    struct stat now;
    int open_now = fstat(fd, &now) == 0;
    if (open_before[fd]) {
      assert_true(open_now);
      assert_true(now.st_dev == before[fd].st_dev && now.st_ino == before[fd].st_ino);
    } else {
      assert_false(open_now); /* and nothing of the sampler's left open */
    }
  }
  dup2(saved0, 0);
  close(saved0);
  close(null_fd);
}

/* ---- the store ---- */

static char db_path[256];

static struct gw_recording *load(void) {
  struct gw_store *st;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_open(&st, db_path, 1, &err), GW_OK);
  struct gw_store_load_params params = {.worker_saturated_cpu_pct = 90, .worker_min_avg_cpu_pct = 10};
  struct gw_recording *rec = NULL;
  assert_int_equal(gw_store_load_recording(st, &params, &rec, &err), GW_OK);
  gw_store_close(st);
  return rec;
}

static void test_store_round_trip(void **state) {
  (void)state;
  snprintf(db_path, sizeof db_path, "/tmp/gw_test_threads_%d.db", (int)getpid());
  struct gw_store *st;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_create(&st, db_path, &err), GW_OK);
  struct gw_run_info run = {.started_ns = 1000, .source = "record"};
  assert_int_equal(gw_store_put_run(st, &run), GW_OK);
  assert_int_equal(gw_store_put_thread_info(st, 11, 10, GW_TROLE_AUTOGRAD, "pt_autograd_0", 1000), GW_OK);
  assert_int_equal(gw_store_put_thread_info(st, 10, 10, GW_TROLE_HELPER, "python3", 1000), GW_OK);
  /* renamed: the row is replaced */
  assert_int_equal(gw_store_put_thread_info(st, 10, 10, GW_TROLE_MAIN, "pt_main_thread", 1000), GW_OK);
  for (int k = 0; k < 3; k++) {
    assert_int_equal(gw_store_put_thread_sample(st, 2000 + k, 10, GW_TSTATE_SLEEPING, GW_WAIT_FUTEX, 202, 5000000 * k),
                     GW_OK);
    assert_int_equal(gw_store_put_thread_sample(st, 2000 + k, 11, GW_TSTATE_RUNNING, GW_WAIT_NONE, -1, -1), GW_OK);
  }
  assert_int_equal(gw_store_put_meta(st, "thread_sampling_hz", "20"), GW_OK);
  assert_int_equal(gw_store_put_meta(st, "thread_sampling_note", "system calls of process 12 unreadable"), GW_OK);
  assert_int_equal(gw_store_commit(st), GW_OK);
  gw_store_close(st);

  struct gw_recording *rec = load();
  assert_int_equal(rec->nthreads, 2);
  assert_int_equal(rec->threads[0].tid, 10); /* by tid */
  assert_int_equal(rec->threads[0].role, GW_TROLE_MAIN);
  assert_string_equal(rec->threads[0].comm, "pt_main_thread");
  assert_int_equal(rec->threads[1].role, GW_TROLE_AUTOGRAD);
  assert_int_equal(rec->nthread_ticks, 6);
  for (size_t i = 1; i < rec->nthread_ticks; i++)
    assert_true(rec->thread_ticks[i - 1].t_ns <= rec->thread_ticks[i].t_ns);
  assert_int_equal(rec->thread_ticks[2].tid, 10);
  assert_int_equal(rec->thread_ticks[2].wait, GW_WAIT_FUTEX);
  assert_int_equal(rec->thread_ticks[2].syscall, 202);
  assert_int_equal(rec->thread_ticks[2].cpu_ns, 5000000);
  assert_int_equal(rec->thread_ticks[3].syscall, -1); /* NULL: unknown */
  assert_int_equal(rec->thread_ticks[3].cpu_ns, -1);
  assert_int_equal(rec->thread_ticks[3].state, GW_TSTATE_RUNNING);
  assert_true(rec->thread_sampling_hz == 20.0);
  assert_string_equal(rec->thread_sampling_note, "system calls of process 12 unreadable");
  assert_int_equal(rec->thread_ticks_stride, 1);
  gw_recording_free(rec);

  /* a recording of schema 1 has neither table: it loads, with no threads */
  sqlite3 *db;
  assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db,
                                "DROP TABLE thread_sample; DROP TABLE thread_info; DELETE FROM meta WHERE key LIKE "
                                "'thread%'; PRAGMA user_version = 1",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(db);
  rec = load();
  assert_int_equal(rec->nthreads, 0);
  assert_int_equal(rec->nthread_ticks, 0);
  assert_true(rec->thread_sampling_hz == 0.0);
  assert_null(rec->threads);
  gw_recording_free(rec);
  /* and opened for writing, a thread row creates the tables it lacks */
  assert_int_equal(gw_store_open(&st, db_path, 0, &err), GW_OK);
  assert_int_equal(gw_store_put_thread_sample(st, 5000, 10, GW_TSTATE_DISK, GW_WAIT_DISK, -1, 7), GW_OK);
  assert_int_equal(gw_store_commit(st), GW_OK);
  gw_store_close(st);
  rec = load();
  assert_int_equal(rec->nthread_ticks, 1);
  gw_recording_free(rec);
  support_db_remove(db_path);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_parse_syscall_line),
    cmocka_unit_test(test_fd_kinds),
    cmocka_unit_test(test_wait_folding),
    cmocka_unit_test(test_roles),
    cmocka_unit_test(test_fixture_tree),
    cmocka_unit_test(test_live_futex_and_spin),
    cmocka_unit_test(test_live_closes_only_its_fds),
    cmocka_unit_test(test_store_round_trip),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
