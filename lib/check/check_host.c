/* Host group: what on the CPU side can starve a GPU before any code runs:
 * the CPU frequency governor, a battery, memory and swap, how many cores the
 * data loader can use, the disk under the current directory, and which NUMA
 * node each GPU hangs off. Everything is read under the root directory. */
#include "check_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

static int read_line(const char *root, const char *path, char *out, size_t cap) {
  if (gw_read_file_at(root, path, out, cap, NULL) < 0)
    return -1;
  out[strcspn(out, "\n")] = '\0';
  return 0;
}

/* One item when the host source could not open at all, in place of the
 * host rows (which read ctx->hs and so run only when it was sampled). */
void gw_check_host_unread(struct check_ctx *ctx) {
  struct gw_check_item *it = gw_check_add_named(ctx, "host", "facts", _("host facts"), -1, GW_CHECK_NOTE);
  gw_check_reason(it, _("The host could not be read (%s), so the host items were skipped."),
                  ctx->host_err[0] ? ctx->host_err : _("no reason given"));
}

static void check_governor(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  const char *gov = ctx->hs.governor;
  char driver[64] = "";
  read_line(ctx->root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", driver, sizeof driver);
  if (!gov[0]) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
    gw_check_reason(it, _("No cpufreq governor is visible: the firmware or the hypervisor sets the CPU clock (usual "
                          "in virtual machines)."));
    return;
  }
  int powersave = strcmp(gov, "powersave") == 0;
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, powersave ? GW_CHECK_WARN : GW_CHECK_PASS);
  gw_check_reason(it, _("cpu0 uses the %s governor%s%s%s."), gov, driver[0] ? _(" (driver ") : "", driver,
                  driver[0] ? ")" : "");
  if (powersave) {
    if (strncmp(driver, "intel_pstate", 12) == 0 || strncmp(driver, "amd-pstate", 10) == 0)
      gw_check_reason(it, _("With this driver powersave still raises the clock, but favours energy: the thread that "
                            "launches GPU work and the data loaders answer more slowly."));
    else
      gw_check_reason(it, _("It holds the CPUs at their lowest clock: the thread that launches GPU work and the data "
                            "loaders run slowly."));
    gw_check_fix(it, _("sudo cpupower frequency-set -g performance (or write performance to "
                       "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)."));
  } else if (strcmp(gov, "performance") != 0) {
    gw_check_reason(it, _("It raises the clock with load; performance keeps it up, which helps a launch-bound job a "
                          "little."));
  }
}

static void check_power_source(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (!(ctx->hs.valid & (1u << GW_H_POWER))) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
    gw_check_reason(it, _("No battery or power supply is listed (a desktop or server)."));
    return;
  }
  if (ctx->hs.on_battery) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_WARN);
    gw_check_value(it, "on_battery", 1);
    gw_check_reason(it, _("Running on battery: laptops cut CPU and GPU power limits to save it."));
    gw_check_fix(it, _("Plug in the power supply before measuring or training."));
    return;
  }
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  gw_check_value(it, "on_battery", 0);
  gw_check_reason(it, _("On mains power."));
}

static void check_memory(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  const struct gw_host_sample *hs = &ctx->hs;
  if (!(hs->valid & (1u << GW_H_MEM))) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
    gw_check_reason(it, _("Memory figures could not be read%s%s."), ctx->host_err[0] ? ": " : "", ctx->host_err);
    return;
  }
  double total = (double)hs->mem_total_bytes, avail = (double)hs->mem_available_bytes;
  double pct = total > 0 ? 100.0 * avail / total : 0;
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  gw_check_value(it, "mem_total_bytes", total);
  gw_check_value(it, "mem_available_bytes", avail);
  gw_check_reason(it, _("%.1f GiB of %.1f GiB available (%.0f%%)."), avail / GIB, total / GIB, pct);
  if (pct < 10) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it, _("Little is left for the data loader's workers, pinned buffers and the page cache that "
                          "keeps the dataset in memory."));
    gw_check_fix(it, _("Close what else runs; in the job, fewer workers or a smaller prefetch_factor."));
  }
}

static void check_swap(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  const struct gw_host_sample *hs = &ctx->hs;
  if (hs->swap_total_bytes < 0 || hs->swap_free_bytes < 0) {
    if (hs->valid & (1u << GW_H_MEM)) {
      struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
      gw_check_reason(it, _("/proc/meminfo has no swap lines."));
    }
    return;
  }
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  double total = (double)hs->swap_total_bytes;
  double used = total - (double)hs->swap_free_bytes;
  if (used < 0)
    used = 0;
  gw_check_value(it, "swap_total_bytes", total);
  gw_check_value(it, "swap_used_bytes", used);
  if (total == 0) {
    gw_check_reason(it, _("No swap is configured."));
    return;
  }
  if (used > 0) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it,
                    _("%.0f MiB of %.1f GiB swap in use: a training step that touches swapped-out pages (in a "
                      "loader worker or a pinned buffer) waits for the disk."),
                    used / MIB, total / GIB);
    gw_check_fix(it, _("Find what holds the memory (top, sorted by resident size); once memory is free, sudo swapoff "
                       "-a && sudo swapon -a brings the pages back."));
  } else {
    gw_check_reason(it, _("%.1f GiB of swap, none in use."), total / GIB);
  }
}

static void check_cpu_cores(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  const struct gw_host_info *hi = &ctx->hi;
  int physical = hi->physical_cores, logical = hi->logical_cpus;
  if (physical <= 0 && logical <= 0) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
    gw_check_reason(it, _("The number of CPUs could not be read from /proc/cpuinfo or /proc/stat."));
    return;
  }
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  int cores = physical > 0 ? physical : (logical + 1) / 2;
  if (physical > 0) {
    gw_check_value(it, "physical_cores", physical);
    gw_check_reason(it, _("%d physical cores"), physical);
  }
  if (logical > 0) {
    gw_check_value(it, "logical_cpus", logical);
    gw_check_reason(it, _("%s%d logical CPUs%s"), physical > 0 ? "(" : "", logical, physical > 0 ? ")" : "");
  }
  if (hi->cpu_model[0])
    gw_check_reason(it, _("of %s."), hi->cpu_model);
  else
    gw_check_reason(it, ".");
  if (physical <= 0)
    gw_check_reason(it,
                    cores == 1
                        ? _("/proc/cpuinfo gives no core ids, so they count as %d physical core (two threads each).")
                        : _("/proc/cpuinfo gives no core ids, so they count as %d physical cores (two threads each)."),
                    cores);
  int workers = cores / 2 > 0 ? cores / 2 : 1;
  unsigned gpus = ctx->ngpus;
  gw_check_value(it, "suggested_num_workers_total", workers);
  if (gpus > 1)
    gw_check_reason(it,
                    _("Start DataLoader num_workers from about %d in all, half the physical cores: with %u GPUs, "
                      "one process each, about %d per process. Raise it while the GPU waits for data, lower it "
                      "when the CPUs are saturated."),
                    workers, gpus, workers / (int)gpus > 0 ? workers / (int)gpus : 1);
  else
    gw_check_reason(it,
                    _("Start DataLoader num_workers from about %d, half the physical cores; raise it while the "
                      "GPU waits for data, lower it when the CPUs are saturated."),
                    workers);
  if (gpus > 0 && (double)cores / gpus < 2) {
    gw_check_raise(it, GW_CHECK_WARN);
    gw_check_reason(it, _("Fewer than two cores per GPU: data loading and the threads that launch GPU work compete "
                          "for them."));
    gw_check_fix(it, _("Move decoding and augmentation to the GPU (DALI, torchvision.transforms.v2 on CUDA tensors), "
                       "or store the data pre-processed."));
  }
}

/* ---- the disk under the current directory ---- */

/* mountinfo escapes space, tab, newline and backslash as octal. */
static void unescape_octal(char *s) {
  char *w = s;
  for (const char *r = s; *r;) {
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
      *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
      r += 4;
    } else {
      *w++ = *r++;
    }
  }
  *w = '\0';
}

/* "259:2" into its two numbers. */
static int parse_dev_numbers(const char *text, unsigned *major, unsigned *minor) {
  char part[16];
  size_t n = strcspn(text, ":");
  uint64_t a, b;
  if (text[n] != ':' || gw_copy_token(part, sizeof part, text, n) != 0)
    return -1;
  if (gw_parse_u64(part, &a) != 0 || gw_parse_u64(text + n + 1, &b) != 0 || a > 0xfffff || b > 0xfffff)
    return -1;
  *major = (unsigned)a;
  *minor = (unsigned)b;
  return 0;
}

struct mount_entry {
  unsigned major, minor;
  char mount_point[1024];
  char fstype[64];
  char source[512];
};

static int path_under(const char *path, const char *mp) {
  size_t n = strlen(mp);
  if (n == 1 && mp[0] == '/')
    return 1;
  return strncmp(path, mp, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The mount that holds path: the longest matching mount point, the later
 * one when two share it (it sits on top). 0, or -1 with a reason. */
static int find_mount(const char *root, const char *path, struct mount_entry *out, char *why, size_t why_cap) {
  size_t cap = 1 << 20;
  char *text = gw_xcalloc(1, cap);
  if (gw_read_file_at(root, "/proc/self/mountinfo", text, cap, NULL) < 0) {
    snprintf(why, why_cap, _("cannot read /proc/self/mountinfo: %s"), gw_strerror(errno));
    free(text);
    return -1;
  }
  size_t best_len = 0;
  int found = 0, line_no = 0, bad_line = 0;
  for (char *line = text; *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    line_no++;
    /* id parent major:minor root mount_point options [optional...] - fstype source super_options */
    char *fields[8];
    int nf = 0;
    char *save = line;
    while (nf < 6 && *save) {
      while (*save == ' ')
        save++;
      fields[nf++] = save;
      save += strcspn(save, " ");
      if (*save)
        *save++ = '\0';
    }
    char *dash = strstr(save, "- ");
    if (save[0] == '-' && save[1] == ' ')
      dash = save;
    else if (dash && dash[-1] != ' ')
      dash = NULL;
    unsigned major = 0, minor = 0;
    if (nf < 6 || !dash || parse_dev_numbers(fields[2], &major, &minor) != 0) {
      if (!bad_line)
        bad_line = line_no;
    } else {
      char *rest = dash + 2;
      char *fstype = rest;
      rest += strcspn(rest, " ");
      if (*rest)
        *rest++ = '\0';
      char *source = rest;
      source[strcspn(source, " ")] = '\0';
      unescape_octal(fields[4]);
      size_t mp_len = strlen(fields[4]);
      if (path_under(path, fields[4]) && mp_len >= best_len) {
        best_len = mp_len;
        found = 1;
        out->major = major;
        out->minor = minor;
        gw_strlcpy(out->mount_point, fields[4], sizeof out->mount_point);
        gw_strlcpy(out->fstype, fstype, sizeof out->fstype);
        unescape_octal(source);
        gw_strlcpy(out->source, source, sizeof out->source);
      }
    }
    if (!nl)
      break;
    line = nl + 1;
  }
  free(text);
  if (!found) {
    if (bad_line)
      snprintf(why, why_cap, _("/proc/self/mountinfo line %d is not in the kernel's format, and no mount holds %.300s"),
               bad_line, path);
    else
      snprintf(why, why_cap, _("no mount in /proc/self/mountinfo holds %.300s"), path);
    return -1;
  }
  return 0;
}

static int is_network_fs(const char *fstype) {
  static const char *const network[] = {"nfs",  "nfs4",   "cifs", "smb3",      "lustre",
                                        "gpfs", "beegfs", "ceph", "glusterfs", "9p"};
  for (size_t i = 0; i < sizeof network / sizeof network[0]; i++)
    if (strcmp(fstype, network[i]) == 0)
      return 1;
  return strncmp(fstype, "fuse", 4) == 0;
}

static void check_disk(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  char cwd[4096];
  const char *dir = ctx->opts->data_dir;
  const char *what = dir ? _("The data directory") : _("The current directory");
  if (!dir && !getcwd(cwd, sizeof cwd)) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
    gw_check_reason(it, _("The current directory is unknown (%s)."), gw_strerror(errno));
    return;
  }
  if (dir && ctx->live && !realpath(dir, cwd)) {
    /* Mount points are matched on the real path, without symlinks. */
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
    gw_check_reason(it, _("%s %s cannot be resolved (%s)."), what, dir, gw_strerror(errno));
    return;
  }
  if (dir && !ctx->live) {
    if (dir[0] != '/') {
      struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
      gw_check_reason(it, _("With --root the data directory must be an absolute path inside the tree, not '%s'."), dir);
      return;
    }
    gw_strlcpy(cwd, dir, sizeof cwd);
  }
  struct mount_entry m;
  char why[1200];
  if (find_mount(ctx->root, cwd, &m, why, sizeof why) != 0) {
    struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_NOTE);
    gw_check_reason(it, _("The disk under %s could not be found: %s."), cwd, why);
    return;
  }
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  gw_check_reason(it, _("%s %s is on %s (%s, mounted at %s)"), what, cwd, m.source, m.fstype, m.mount_point);
  if (m.major == 0) {
    /* No block device behind it. */
    if (is_network_fs(m.fstype)) {
      gw_check_raise(it, GW_CHECK_NOTE);
      gw_check_reason(it, _(", a network or user-space file system: every read crosses the network or a daemon, "
                            "and many small files make the data loader wait."));
      gw_check_fix(it, _("Copy the dataset to a local SSD first, or read it as large sequential shards."));
    } else if (strcmp(m.fstype, "tmpfs") == 0) {
      gw_check_reason(it, _(", which lives in memory."));
    } else {
      gw_check_raise(it, GW_CHECK_NOTE);
      gw_check_reason(it, _(", which has no disk of its own in view (an overlay of a container, for one): its "
                            "speed depends on storage not visible here."));
    }
    return;
  }
  char dev_dir[64], link[1024], rot[16];
  snprintf(dev_dir, sizeof dev_dir, "/sys/dev/block/%u:%u", m.major, m.minor);
  char full[4096];
  ssize_t ln = -1;
  if (gw_path_at(ctx->root, dev_dir, full, sizeof full) == 0)
    ln = readlink(full, link, sizeof link - 1);
  char name[128] = "", disk[128] = "";
  if (ln > 0) {
    link[ln] = '\0';
    char *base = strrchr(link, '/');
    gw_strlcpy(name, base ? base + 1 : link, sizeof name);
    if (base) {
      *base = '\0';
      char *parent = strrchr(link, '/');
      gw_strlcpy(disk, parent ? parent + 1 : link, sizeof disk);
    }
  }
  char rot_path[128];
  int partition = 0;
  snprintf(rot_path, sizeof rot_path, "%s/queue/rotational", dev_dir);
  if (read_line(ctx->root, rot_path, rot, sizeof rot) != 0) {
    /* A partition has no queue of its own: its disk is the parent folder. */
    snprintf(rot_path, sizeof rot_path, "%s/../queue/rotational", dev_dir);
    partition = 1;
    if (read_line(ctx->root, rot_path, rot, sizeof rot) != 0) {
      gw_check_raise(it, GW_CHECK_NOTE);
      gw_check_reason(it, _(", block device %u:%u, whose kind (rotational or not) is not in /sys."), m.major, m.minor);
      return;
    }
  }
  const char *disk_name = partition && disk[0] ? disk : (name[0] ? name : _("the disk"));
  if (name[0] && partition && disk[0])
    gw_check_reason(it, _(", partition %s of disk %s"), name, disk);
  else if (name[0])
    gw_check_reason(it, _(", disk %s"), name);
  if (strcmp(rot, "0") == 0) {
    gw_check_value(it, "rotational", 0);
    gw_check_reason(it, _(", a solid-state disk."));
    return;
  }
  if (strcmp(rot, "1") != 0) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("; its queue/rotational holds '%s', not 0 or 1."), rot);
    return;
  }
  gw_check_value(it, "rotational", 1);
  /* virtio and Xen disks often claim to spin whatever backs them. */
  if (strncmp(disk_name, "vd", 2) == 0 || strncmp(disk_name, "xvd", 3) == 0) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _(", a virtual disk that says it spins; virtual disks often say so whatever storage backs "
                          "them."));
    gw_check_fix(it, _("If data loading is slow, measure the disk (fio, or gpuwhy record's disk figures) rather than "
                       "trusting this flag."));
    return;
  }
  gw_check_raise(it, GW_CHECK_WARN);
  gw_check_reason(it, _(", a spinning disk: random reads of many small files are slow, and data loading starves the "
                        "GPU."));
  gw_check_fix(it, _("Keep training data on an SSD or NVMe disk, or pack it into large sequential shards "
                     "(WebDataset, TFRecord, a memory-mapped array)."));
}

/* ---- NUMA ---- */

/* How many numbers a kernel list like "0-3,8,10-11" names; -1 if malformed. */
static int count_list(const char *s) {
  int n = 0;
  while (*s) {
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || a < 0)
      return -1;
    long b = a;
    if (*end == '-') {
      const char *start = end + 1;
      b = strtol(start, &end, 10);
      if (end == start || b < a)
        return -1;
    }
    n += (int)(b - a + 1);
    if (*end == ',')
      end++;
    else if (*end && *end != '\n')
      return -1;
    else if (*end == '\n')
      break;
    s = end;
  }
  return n;
}

static void check_numa(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu) {
  (void)gpu;
  if (ctx->ngpus == 0)
    return;
  char online[256];
  int nodes =
      read_line(ctx->root, "/sys/devices/system/node/online", online, sizeof online) == 0 ? count_list(online) : -1;
  struct gw_check_item *it = gw_check_add(ctx, def, NULL, GW_CHECK_PASS);
  if (nodes >= 0)
    gw_check_value(it, "numa_nodes", nodes);
  if (nodes <= 1) {
    gw_check_reason(it, _("%s: every GPU is equally close to every CPU."),
                    nodes == 1 ? _("One NUMA node") : _("No NUMA information (one node, as far as can be seen)"));
    return;
  }
  gw_check_reason(it, _("%d NUMA nodes."), nodes);
  int placed = 0;
  int first_node = -1;
  for (unsigned g = 0; g < ctx->ngpus; g++) {
    const struct check_gpu *cg = &ctx->gpus[g];
    unsigned d, b, dev, f;
    if (gw_check_parse_pci(cg->info.pci_bus_id, &d, &b, &dev, &f) != 0) {
      gw_check_reason(it, _("GPU %u: bus id unknown."), g);
      continue;
    }
    char path[128], value[32], cpus[256];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%04x:%02x:%02x.%x/numa_node", d, b, dev, f);
    int64_t node;
    if (read_line(ctx->root, path, value, sizeof value) != 0 || gw_parse_i64(value, &node) != 0) {
      gw_check_raise(it, GW_CHECK_NOTE);
      gw_check_reason(it, _("GPU %u: %s is missing or not a number."), g, path);
      continue;
    }
    if (node < 0) {
      gw_check_reason(it, _("GPU %u: the platform reports no node for it."), g);
      continue;
    }
    snprintf(path, sizeof path, "/sys/devices/system/node/node%lld/cpulist", (long long)node);
    if (read_line(ctx->root, path, cpus, sizeof cpus) != 0)
      gw_strlcpy(cpus, _("unknown"), sizeof cpus);
    gw_check_reason(it, _("GPU %u sits on node %lld (CPUs %s)."), g, (long long)node, cpus);
    if (g < 4) {
      char vname[32];
      snprintf(vname, sizeof vname, "gpu%u_numa_node", g);
      gw_check_value(it, vname, (double)node);
    }
    if (first_node < 0)
      first_node = (int)node;
    placed++;
  }
  if (placed > 0) {
    gw_check_raise(it, GW_CHECK_NOTE);
    gw_check_reason(it, _("A process fed from the far node pays for every host-to-device copy and its loaders share "
                          "a remote memory controller."));
    gw_check_fix(it,
                 _("Run each GPU's process on its node, e.g. numactl --cpunodebind=%d --membind=%d for a job on "
                   "the first GPU listed; DataLoader workers inherit the binding."),
                 first_node, first_node);
  }
}

const struct check_def gw_check_host_rows[] = {
    {"host", "governor", N_("CPU governor"), CHECK_SYSTEM, check_governor},
    {"host", "power_source", N_("power source"), CHECK_SYSTEM, check_power_source},
    {"host", "memory", N_("memory"), CHECK_SYSTEM, check_memory},
    {"host", "swap", N_("swap"), CHECK_SYSTEM, check_swap},
    {"host", "cpu_cores", N_("CPU cores"), CHECK_SYSTEM, check_cpu_cores},
    {"host", "disk", N_("disk"), CHECK_SYSTEM, check_disk},
    {"host", "numa", N_("NUMA placement"), CHECK_SYSTEM, check_numa},
};
const size_t gw_check_host_nrows = sizeof gw_check_host_rows / sizeof gw_check_host_rows[0];
