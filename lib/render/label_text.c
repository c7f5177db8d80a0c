/* The tables of label_text.h: the English message of each id, marked with
 * N_() and translated when shown. */
#include "label_text.h"

#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

struct label {
  const char *id, *msgid;
};

static const char *find(const struct label *rows, size_t n, const char *id) {
  for (size_t i = 0; id && i < n; i++)
    if (strcmp(rows[i].id, id) == 0)
      return rows[i].msgid;
  return NULL;
}

static const struct label ROW_TITLES[] = {
    /* TRANSLATORS: ledger row titles, the report table's first column: at most 58 columns (CJK counts 2). */
    {"productive", N_("productive (SMs working at full clock)")},
    {"underfilled", N_("underfilled (kernel resident, SMs mostly empty)")},
    {"throttled", N_("throttled (work slowed by lowered clocks)")},
    {"idle_input", N_("idle: input (host preparing data)")},
    {"idle_launch", N_("idle: launch (host cannot issue kernels fast enough)")},
    {"idle_sync", N_("idle: sync (host blocked in a synchronizing call)")},
    {"idle_comm", N_("idle: communication (waiting on other GPUs)")},
    {"idle_periodic", N_("idle: periodic (eval, checkpoint, logging)")},
    {"idle_other", N_("idle: other (no signal explains it)")},
    {"startup", N_("startup, warm-up step and tail (outside the steady run)")},
    /* the variants a report shows (gw_diagnosis_row_title_id) */
    {"productive_sm_blind", N_("busy (kernel resident, SM fill not measured)")},
    {"idle_other_claimed", N_("idle: other (claimed by a finding, indirect signals)")},
};

const char *gw_row_title(const char *id) {
  const char *msgid = find(ROW_TITLES, sizeof ROW_TITLES / sizeof ROW_TITLES[0], id);
  return msgid ? _(msgid) : id ? id : "?";
}

const char *gw_straggler_cause_text(enum gw_straggler_cause c) {
  switch (c) {
  case GW_STRAGGLER_MORE_WORK:
    return _("more compute per step than the others");
  case GW_STRAGGLER_CLOCKS:
    return _("lower SM clocks for the same work");
  case GW_STRAGGLER_THROTTLE:
    return _("thermal or hardware slowdown");
  case GW_STRAGGLER_INPUT:
    return _("its input pipeline stalls");
  case GW_STRAGGLER_OTHER_PROCESS:
    return _("another process shares its GPU");
  default:
    return _("cause not clear from the counters");
  }
}

/* keyed by gw_nccl_advice_id */
static const struct label NCCL_ADVICE[] = {
    {"socket_one_node",
     N_("NCCL moved data between GPUs of one machine through TCP sockets, the slowest path: P2P and shared memory were "
        "unavailable or switched off. Check NCCL_P2P_DISABLE and NCCL_SHM_DISABLE in the environment and the links "
        "between the GPUs with nvidia-smi topo -m.")},
    {"shm_between_gpus",
     N_("NCCL copied data between GPUs through host shared memory instead of directly. If nvidia-smi topo -m shows NV# "
        "(NVLink) or PIX/PXB between them, P2P should have been used: check NCCL_P2P_DISABLE and NCCL_P2P_LEVEL, and "
        "whether PCIe ACS or the IOMMU blocks peer access (common in VMs).")},
    {"p2p_disabled",
     N_("P2P between GPUs is off: NCCL_P2P_DISABLE is set, or NCCL could not enable it. Unset NCCL_P2P_DISABLE; "
        "otherwise check PCIe ACS (lspci -vvv | grep ACSCtl), the IOMMU (iommu=pt) and nvidia-smi topo -p2p r.")},
    {"shm_disabled",
     N_("NCCL_SHM_DISABLE is set: without shared memory, GPUs that cannot use P2P fall back to sockets. Unset it.")},
    {"ib_without_gdr",
     N_("InfiniBand/RoCE is used without GPUDirect RDMA, so every transfer is staged through host memory. Check that "
        "the nvidia-peermem module is loaded (lsmod | grep peermem), NCCL_NET_GDR_LEVEL, and that each GPU has a NIC "
        "close to it (nvidia-smi topo -m).")},
    {"socket_between_nodes",
     N_("NCCL connects the nodes through TCP sockets. If the nodes have InfiniBand or RoCE, check NCCL_IB_DISABLE and "
        "NCCL_IB_HCA (NET/IB must find the adapters); otherwise set NCCL_SOCKET_IFNAME to the fastest interface.")},
    {"ib_disabled",
     N_("NCCL_IB_DISABLE is set: NCCL cannot use InfiniBand/RoCE between nodes. Unset it if the nodes have such "
        "adapters.")},
    {"nccl_warnings",
     N_("NCCL printed warnings (NCCL WARN): read them first, a failing transport often falls back to a slower one.")},
};

const char *gw_nccl_advice_english(enum gw_nccl_advice a) {
  const char *msgid = find(NCCL_ADVICE, sizeof NCCL_ADVICE / sizeof NCCL_ADVICE[0], gw_nccl_advice_id(a));
  return msgid ? msgid : "";
}

const char *gw_nccl_advice_text(enum gw_nccl_advice a) {
  const char *msgid = gw_nccl_advice_english(a);
  return msgid[0] ? _(msgid) : "";
}

/* indexed by the cause (analysis/idle_attribution.h): the words of gw_idle_cause_name's ids */
static const char *const IDLE_CAUSES[GW_IDLE_NCAUSES] = {
    [GW_PYACT_OTHER] = N_("doing something else"),
    [GW_PYACT_DATA_WAIT] = N_("waiting for the next batch"),
    [GW_PYACT_DATA_INLINE] = N_("making the batch itself"),
    [GW_PYACT_H2D] = N_("copying the batch to the GPU"),
    [GW_PYACT_SYNC] = N_("in a synchronising call"),
    [GW_PYACT_CHECKPOINT] = N_("writing a checkpoint"),
    [GW_PYACT_EVAL] = N_("evaluating"),
    [GW_PYACT_LOGGING] = N_("logging"),
    [GW_PYACT_COMPILE] = N_("compiling"),
    [GW_PYACT_OPTIMIZER] = N_("in the optimizer"),
    [GW_PYACT_FORWARD_BACKWARD] = N_("launching forward/backward"),
    [GW_PYACT_COLLECTIVE] = N_("in a collective"),
    [GW_PYACT_IDLE] = N_("sleeping or waiting on its own threads"),
    [GW_CAUSE_HOST_RUNNING] = N_("running on the CPU"),
    [GW_CAUSE_DISK_IO] = N_("waiting on the disk"),
    [GW_CAUSE_NEW_SHAPE] = N_("running steps of input shapes not seen before"),
    [GW_CAUSE_GPU_PACED] = N_("launching, in short gaps of a GPU busy most of the time"),
    [GW_CAUSE_HOST_NO_KERNEL] = N_("in the model's code on the host, with no kernel reaching the GPU"),
    [GW_CAUSE_LOCK_WAIT] = N_("waiting for Python's interpreter lock, with a thread of its own process running"),
    [GW_CAUSE_HELPER_LOCK_WAIT] = N_("waiting for Python's interpreter lock, held by a thread of its own process, in "
                                     "a loop that takes no batch from the host"),
    [GW_CAUSE_UNRESOLVED] = N_("in stretches shorter than two samples (unresolved)"),
    [GW_CAUSE_UNSAMPLED] = N_("not sampled"),
};

static const char *idle_cause_msgid(int cause) {
  return cause >= 0 && cause < GW_IDLE_NCAUSES && IDLE_CAUSES[cause] ? IDLE_CAUSES[cause]
                                                                     : IDLE_CAUSES[GW_CAUSE_UNSAMPLED];
}

int gw_idle_largest_activity_text(const struct gw_idle_attribution *attr, int ngpus, char *buf, size_t cap) {
  const struct gw_idle_attribution *a = NULL;
  int c = gw_idle_largest_cause(attr, ngpus, &a);
  if (cap)
    buf[0] = 0;
  if (c < 0 || !cap)
    return 0;
  const struct gw_attr_row *r = &a->rows[c];
  if (r->nframes)
    snprintf(buf, cap, _("While the GPU sat idle, the training thread was %s (%s) %.0f%% of the time."),
             gw_idle_cause_text(c), r->frame_text[0], r->share_of_idle * 100);
  else
    snprintf(buf, cap, _("While the GPU sat idle, the training thread was %s %.0f%% of the time."),
             gw_idle_cause_text(c), r->share_of_idle * 100);
  return 1;
}

const char *gw_idle_cause_text(int cause) {
  return _(idle_cause_msgid(cause));
}

/* The phrase ids a rule hands over as GW_PHRASE values, other than the
 * idle causes' */
static const struct label PHRASES[] = {
    /* multi_gpu_sync's nccl_slow_path, when no slow transport is named */
    {"p2p_unavailable", N_("P2P disabled or unavailable")},
    /* what each rule reads (struct gw_rule's sees_with), for class_not_measurable */
    {"sees_input_pipeline", N_("the job's CPU samples, the Python hook's steps, stack samples or a kernel trace")},
    {"sees_small_batch",
     N_("SM activity (GPM, on Hopper and newer; `record --pm-sampling`) or a kernel trace (`record --trace`)")},
    {"sees_launch_overhead", N_("the job's CPU samples, stack samples or a kernel trace")},
    {"sees_hardware_env", N_("the SM clock and its clock event reasons")},
    {"sees_schedule_shape", N_("GPU activity tick by tick, the training loop's steps or a kernel trace")},
};

const char *gw_phrase_msgid(const char *phrase) {
  if (!phrase)
    return "";
  for (int c = 0; c < GW_IDLE_NCAUSES; c++)
    if (strcmp(gw_idle_cause_name(c), phrase) == 0)
      return idle_cause_msgid(c);
  const char *msgid = find(PHRASES, sizeof PHRASES / sizeof PHRASES[0], phrase);
  return msgid ? msgid : phrase;
}
