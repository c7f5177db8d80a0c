/* The message table of the fix ids: one row per id the rules emit
 * (lib/analysis/rule_*.c, measured_verdict.c), the change to make and why it
 * helps, in English (marked with N_), translated when shown. */
#include "fix_text.h"
#include "render/message_table.h"

#include <string.h>

#include "core/i18n.h"

static const struct gw_fix_message messages[] = {
    /* hardware_env */
    {"hardware_env.move_other_process",
     N_("move the other process off this GPU, or give each job its own GPU (CUDA_VISIBLE_DEVICES)"),
     N_("two processes on one GPU take turns: each runs only while the other waits")},
    {"hardware_env.name_the_reason", N_("nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE and dmesg -T | grep -i nvrm"),
     N_("name the reason before changing anything")},
    {"hardware_env.restore_cooling_power",
     N_("restore cooling, power supply and the default power limit; run on mains power"),
     N_("clocks recover when the GPU is not held back")},
    {"hardware_env.driver_and_card",
     N_("update or reinstall the driver; reseat the card; replace a GPU with uncorrected errors"),
     N_("Xid and ECC errors are hardware or driver faults, not program bugs")},
    {"hardware_env.cpu_governor", N_("use the performance CPU governor (cpupower frequency-set -g performance)"),
     N_("a host-bound run is as fast as its CPU clock")},

    /* input_pipeline */
    {"input_pipeline.more_workers",
     N_("DataLoader(num_workers = about half the physical cores, persistent_workers=True, prefetch_factor=4)"),
     N_("more worker processes prepare batches in parallel; persistent workers skip the restart each epoch")},
    {"input_pipeline.pin_memory", N_("DataLoader(pin_memory=True) and .to(device, non_blocking=True)"),
     N_("pinned host memory lets copies run asynchronously instead of through a staging buffer")},
    {"input_pipeline.transforms_on_gpu", N_("move heavy transforms (decode, resize, augmentation) to the GPU"),
     N_("the GPU does in microseconds what a CPU worker does in milliseconds")},
    {"input_pipeline.local_shards", N_("store the dataset locally or stream it in shards (WebDataset)"),
     N_("sequential reads of large shards avoid slow random I/O")},

    /* launch_overhead */
    {"launch_overhead.remove_syncs",
     N_("remove .item(), printing tensors and torch.cuda.synchronize() from the training loop"),
     N_("each one stalls the launch queue until the GPU catches up")},
    /* a command as it is typed: not translated */
    {"launch_overhead.torch_compile", "torch.compile(model)",
     N_("fuses chains of small element-wise kernels into few larger ones")},
    {"launch_overhead.cuda_graphs", N_("CUDA Graphs (torch.cuda.graphs or mode=\"reduce-overhead\") for fixed shapes"),
     N_("one launch replays thousands of kernels")},
    {"launch_overhead.fused_kernels", N_("write or use fused kernels (fused optimizers, fused norms)"),
     N_("fewer, larger kernels per step")},

    /* multi_gpu_sync */
    {"multi_gpu_sync.equal_power_limits",
     N_("compare power limits and clocks of the GPUs (nvidia-smi -q -d POWER,CLOCK) and give every card the "
        "same power limit"),
     N_("the same work at a lower clock takes longer, and every collective waits for that card")},
    {"multi_gpu_sync.fix_throttled_gpu",
     N_("fix the cooling or power of the throttled GPU (nvidia-smi -q -d PERFORMANCE,TEMPERATURE)"),
     N_("one slowed card slows every rank")},
    {"multi_gpu_sync.feed_slow_rank",
     N_("feed the slow rank faster: more DataLoader workers per rank, pin_memory=True, "
        "persistent_workers=True, data on local disk"),
     N_("the other ranks sit in collectives while that rank waits for its batch")},
    {"multi_gpu_sync.move_other_process",
     N_("move the other process off that GPU (nvidia-smi lists the processes on each GPU)"),
     N_("a shared GPU runs its rank slower, and every collective waits for it")},
    {"multi_gpu_sync.balance_work",
     N_("give every rank the same amount of work (DistributedSampler, equal per-rank batch, sequences "
        "bucketed by length, the same model shard size)"),
     N_("every collective waits for the slowest rank")},
    {"multi_gpu_sync.nccl_p2p",
     N_("let NCCL use P2P/NVLink between the GPUs: unset NCCL_P2P_DISABLE and NCCL_SHM_DISABLE, check "
        "nvidia-smi topo -m and PCIe ACS/IOMMU settings"),
     N_("the NCCL log shows data between GPUs of one machine going through host memory or sockets")},
    {"multi_gpu_sync.gpudirect_rdma",
     N_("enable GPUDirect RDMA: load nvidia-peermem, check NCCL_NET_GDR_LEVEL and NCCL_IB_HCA"),
     N_("without it every transfer between nodes is staged through host memory")},
    {"multi_gpu_sync.fast_interconnect",
     N_("connect the nodes over InfiniBand/RoCE (check NCCL_IB_DISABLE, NCCL_IB_HCA), else set "
        "NCCL_SOCKET_IFNAME to the fastest interface"),
     N_("the NCCL log shows TCP sockets between the nodes")},
    {"multi_gpu_sync.overlap_allreduce",
     N_("overlap gradient all-reduce with the backward pass (DDP bucket_cap_mb, gradient_as_bucket_view)"),
     N_("communication hidden behind compute costs no time")},
    {"multi_gpu_sync.nccl_debug",
     N_("NCCL_DEBUG=INFO: check the transport (NVLink/P2P, not sockets); set NCCL_SOCKET_IFNAME"),
     N_("a slow transport stretches every collective")},
    {"multi_gpu_sync.fewer_collectives", N_("gradient accumulation (no_sync), or ZeRO / tensor parallelism"),
     N_("fewer or smaller collectives per sample")},

    /* schedule_shape */
    {"schedule_shape.accumulate_micro_batches", N_("accumulate more micro-batches per optimizer step"),
     N_("the host's optimizer step is paid once per optimizer step: fewer of them, less GPU idle time")},
    {"schedule_shape.overlap_cpu_optimizer",
     N_("overlap the CPU optimizer step with the next micro-batches (a delayed parameter update, as "
        "DeepSpeed's ZeRO-Offload does)"),
     N_("the GPU computes while the host updates the parameters")},
    {"schedule_shape.optimizer_on_gpu",
     N_("keep the optimizer on the GPU where its state fits (or shard it across GPUs)"),
     N_("no host phase and no gradient and parameter copies on the critical path")},
    {"schedule_shape.move_helper_thread",
     N_("move the busy thread's work (a metrics logger or uploader, a converter; batches made in a thread "
        "belong in DataLoader workers) into a process of its own, or do less of it; py-spy dump --pid PID "
        "names the thread"),
     N_("a running Python thread holds the interpreter lock: the thread that launches the kernels waits for "
        "it, and the GPU waits with it")},
    {"schedule_shape.fixed_shapes", N_("pad or bucket variable-length inputs to a few fixed shapes"),
     N_("changing shapes trigger reallocations and recompiles")},
    {"schedule_shape.compile_dynamic",
     N_("compile with dynamic=True, or mark the dimension that varies with "
        "torch._dynamo.mark_dynamic(tensor, dim) before the call; not dynamic=False"),
     N_("with static shapes every new input shape compiles a new graph while the GPU waits")},
    {"schedule_shape.numbers_as_tensors",
     N_("pass Python numbers that change between steps (learning rate, counters) as tensors"),
     N_("dynamo guards on the exact value of a Python number and recompiles when it changes")},
    {"schedule_shape.log_recompiles", N_("run once with TORCH_LOGS=recompiles"),
     N_("it prints each recompilation with the guard that failed: the input and dimension that changed")},
    {"schedule_shape.cudnn_benchmark_shapes",
     N_("with torch.backends.cudnn.benchmark on, pad to a few shapes or turn it off"),
     N_("cuDNN benchmarks its algorithms again for every new input shape")},
    {"schedule_shape.eval_less_often", N_("evaluate less often, or in a separate process on a saved checkpoint"),
     N_("evaluation steals whole seconds of training at each interval")},
    {"schedule_shape.async_checkpoint",
     N_("save checkpoints asynchronously (torch.distributed.checkpoint async_save, or a copy to host then a "
        "writer thread)"),
     N_("the training loop does not wait for the disk")},
    {"schedule_shape.background_logging", N_("log from a background thread and without .item() on every step"),
     N_("each .item() synchronises the GPU")},

    /* small_batch */
    /* xgettext:no-c-format */
    {"small_batch.raise_batch", N_("raise the batch size (sweep it), keeping 20-30% of device memory free"),
     N_("bigger kernels fill more SMs; the headroom avoids allocator thrash and OOM")},
    {"small_batch.mixed_precision", N_("torch.autocast(dtype=torch.bfloat16) (mixed precision)"),
     N_("halves activation memory and uses tensor cores, leaving room for a larger batch")},
    {"small_batch.fixed_shapes", N_("pad or bucket inputs to fixed shapes"),
     N_("fixed shapes stop the caching allocator from re-splitting blocks each step")},
    {"small_batch.activation_checkpointing", N_("activation checkpointing to trade compute for memory"),
     N_("frees memory for a batch large enough to fill the GPU")},
    {"small_batch.cuda_graphs", N_("CUDA Graphs once shapes are fixed"),
     N_("replays the whole step without per-kernel launches")},

#ifdef GW_EXTRA_FIX_MESSAGES
/* Test builds only: the fixes of the test-only class (tests/rule7/). */
#include GW_EXTRA_FIX_MESSAGES
#endif
};

GW_MESSAGE_TABLE_ACCESSORS(struct gw_fix_message, messages, gw_fix_messages, gw_fix_message_find)

const char *gw_fix_what(const struct gw_fix *fix, int translate) {
  const struct gw_fix_message *row = gw_fix_message_find(fix->id);
  if (!row) /* a rule emitted an id without a row: still name the fix */
    return fix->id ? fix->id : "?";
  return translate ? _(row->what) : row->what;
}

const char *gw_fix_why(const struct gw_fix *fix, int translate) {
  const struct gw_fix_message *row = gw_fix_message_find(fix->id);
  if (!row)
    return "";
  return translate ? _(row->why) : row->why;
}
