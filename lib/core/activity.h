/* What a thread of the job was doing at one sample: the enums shared by the
 * thread sampler (lib/sources/thread_sampler.c), the Python stack sampler
 * (the start-up hook) and the attribution of idle time. The numbers are
 * stored in recordings (thread_sample, thread_info, py_sample): never
 * renumber, only append. */
#ifndef GW_ACTIVITY_H
#define GW_ACTIVITY_H

/* What a thread of the job was doing at one sample. */
enum gw_thread_state {
  GW_TSTATE_UNKNOWN = 0,
  GW_TSTATE_RUNNING = 1 /* R */,
  GW_TSTATE_SLEEPING = 2 /* S */,
  GW_TSTATE_DISK = 3 /* D */,
  GW_TSTATE_STOPPED = 4 /* T,t */,
  GW_TSTATE_OTHER = 5
};
/* Where a thread sits in the job, from names and ancestry (never from CPU share). */
enum gw_thread_role {
  GW_TROLE_OTHER = 0,
  GW_TROLE_MAIN = 1 /* a Python process's main thread: launches kernels */,
  GW_TROLE_AUTOGRAD = 2 /* pt_autograd_N */,
  GW_TROLE_LOADER_WORKER = 3 /* main thread of a pt_data_worker / DataLoader worker process */,
  GW_TROLE_PIN_MEMORY = 4 /* pt_pin_memory / the loader's pin-memory thread */,
  GW_TROLE_NCCL = 5 /* NCCL proxy/service threads */,
  GW_TROLE_HELPER = 6 /* any other thread of a job process */
};
/* What the kernel says a sleeping thread waits in, folded from the syscall number and wchan. */
enum gw_wait_kind {
  GW_WAIT_NONE = 0 /* running */,
  GW_WAIT_FUTEX = 1 /* lock/condvar: another thread */,
  GW_WAIT_POLL = 2 /* poll/select/epoll */,
  GW_WAIT_NET = 3 /* recv*, read on a socket */,
  GW_WAIT_PIPE = 4 /* read/write a pipe, e.g. a loader queue */,
  GW_WAIT_DISK = 5 /* D state, or read/pread/open on a file */,
  GW_WAIT_SLEEP = 6 /* nanosleep/clock_nanosleep */,
  GW_WAIT_GPU = 7 /* ioctl on /dev/nvidia*: a CUDA sync */,
  GW_WAIT_OTHER = 8
};
/* What the training thread's Python stack was doing at one sample (the hook's classification). */
enum gw_py_activity {
  GW_PYACT_OTHER = 0,
  GW_PYACT_DATA_WAIT = 1 /* next batch from a DataLoader */,
  GW_PYACT_DATA_INLINE = 2 /* data made in the training thread: no DataLoader or num_workers=0 */,
  GW_PYACT_H2D = 3 /* host-to-device copy (.to/.cuda/copy_) */,
  GW_PYACT_SYNC = 4 /* .item(), .cpu(), .tolist(), synchronize, nonzero, ... */,
  GW_PYACT_CHECKPOINT = 5 /* torch.save, state dict writing */,
  GW_PYACT_EVAL = 6 /* inside no_grad/inference_mode or an eval loop */,
  GW_PYACT_LOGGING = 7 /* logging, print, metrics writers, tensorboard, wandb */,
  GW_PYACT_COMPILE = 8 /* torch._dynamo / inductor / triton compile */,
  GW_PYACT_OPTIMIZER = 9,
  GW_PYACT_FORWARD_BACKWARD = 10 /* module forward, loss.backward: launching kernels */,
  GW_PYACT_COLLECTIVE = 11 /* torch.distributed calls, barrier */,
  GW_PYACT_IDLE = 12 /* the program sleeps (time.sleep) or waits on a thread/queue of its own */,
  GW_PYACT_COUNT
};

/* Names for JSON and docs; "unknown" (state) or "other" for a number outside the enum. */
const char *gw_thread_state_name(int), *gw_thread_role_name(int), *gw_wait_kind_name(int), *gw_py_activity_name(int);

/* Whether a Python function's name (its qualified name; the part after the
 * last dot counts) says it writes a checkpoint: a word of it, split at '_',
 * is checkpoint, checkpoints, checkpointing or ckpt, or it is save_model,
 * save_state or save_weights (and longer names that start so). The hook's
 * _CHECKPOINT_NAME is the same rule. */
int gw_py_func_names_checkpoint(const char *qualname);

#endif
