/* The Xid code table: what each driver error code means for someone training
 * a model, and what to do about it. Codes and mnemonics follow the driver's
 * nverror.h; the advice follows NVIDIA's Xid catalog (its "resolution bucket"
 * decides the severity). Sorted by code for the binary search below. */
#include "kmsg.h"

#include <stddef.h>
#include <stdlib.h>

enum { SEV_APP = 0, SEV_WARN = 1, SEV_RESET = 2 };

static const struct gw_xid_info xid_table[] = {
    {8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT",
     "the GPU stopped making progress on a channel and the driver timed it out",
     "restart the application; if it keeps happening, check for a hang in the "
     "kernel code or a driver problem",
     SEV_APP},
    {13, "ROBUST_CHANNEL_GR_EXCEPTION",
     "the compute engine raised an exception, most often a kernel reading or "
     "writing out of bounds or running an "
     "illegal instruction",
     "restart the job; find the faulting kernel with compute-sanitizer "
     "(memcheck) or CUDA_LAUNCH_BLOCKING=1",
     SEV_APP},
    {31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT",
     "GPU memory page fault: something on the GPU touched an address it does "
     "not own, usually a bug in the "
     "application or an extension kernel",
     "restart the job; run it under compute-sanitizer to find the illegal "
     "access",
     SEV_APP},
    {32, "ROBUST_CHANNEL_PBDMA_ERROR",
     "the DMA engine that feeds commands to the GPU saw a broken command "
     "stream, mostly a PCIe signal quality problem",
     "restart the job; if it repeats, check the PCIe link (width, speed, "
     "replay counters) and the riser or slot",
     SEV_WARN},
    {43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR",
     "the driver stopped one application's work after a fault in that "
     "application; the GPU itself stays healthy",
     "restart the application; other jobs on the GPU keep running", SEV_APP},
    {44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", "the compute engine faulted while switching between contexts",
     "note it; if it repeats, update the driver or report it to the vendor", SEV_WARN},
    {45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL",
     "the driver tore down an application's GPU work, because the process was "
     "killed (Ctrl-C, OOM killer, "
     "signal) or after an earlier error",
     "on its own it is harmless; when other Xids come with it, follow those", SEV_APP},
    {46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "the GPU stopped processing and did not recover",
     "reset the GPU (nvidia-smi -r) or reboot the node; report it if it "
     "repeats",
     SEV_RESET},
    {48, "ROBUST_CHANNEL_GPU_ECC_DBE",
     "an uncorrectable (double-bit) ECC memory error; the application using "
     "that memory got wrong data",
     "reset the GPU or reboot the node; check nvidia-smi -q -d ECC and plan a "
     "replacement if the errors repeat",
     SEV_RESET},
    {61, "PMU_BREAKPOINT",
     "the GPU's internal power-management micro-controller hit a breakpoint (a "
     "warning)",
     "note it; if it comes with other errors or repeats, update the driver or "
     "contact the vendor",
     SEV_WARN},
    {62, "PMU_HALT_ERROR", "the GPU's internal power-management micro-controller halted",
     "reset the GPU; if it returns, contact the vendor", SEV_RESET},
    {63, "INFOROM_DRAM_RETIREMENT_EVENT",
     "the GPU recorded a memory row remap (or page retirement) after ECC "
     "errors; the repair takes effect at the "
     "next GPU reset",
     "no immediate action; reset the GPU at a convenient time so the remap is "
     "applied",
     SEV_WARN},
    {64, "INFOROM_DRAM_RETIREMENT_FAILURE",
     "the GPU could not remap or retire a failing memory row: the memory is "
     "faulty beyond self-repair",
     "reset the GPU; if it fails again, take the GPU out of service and "
     "contact the vendor",
     SEV_RESET},
    {74, "NVLINK_ERROR",
     "an NVLink connection to another GPU or NVSwitch failed (training, CRC or "
     "replay errors); the far end may be the "
     "real culprit",
     "reset the GPU or reboot the node; check nvidia-smi nvlink -e on both "
     "ends; call the vendor if it persists",
     SEV_RESET},
    {79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
     "the GPU no longer answers on PCIe: it is lost to the system, and every "
     "job on it is dead",
     "reboot the node; check the kernel log for PCIe errors, power and "
     "cooling; report the hardware if it repeats",
     SEV_RESET},
    {92, "EXCESSIVE_SBE_INTERRUPTS",
     "many correctable (single-bit) ECC errors in a short time; the data is "
     "still right, but the memory is wearing",
     "keep an eye on the ECC counters; plan a GPU reset and a check of the "
     "board",
     SEV_WARN},
    {94, "ROBUST_CHANNEL_CONTAINED_ERROR",
     "a memory error was contained to one application, which has to restart; "
     "other applications are unaffected",
     "restart the affected job; reset the GPU when convenient", SEV_APP},
    {95, "ROBUST_CHANNEL_UNCONTAINED_ERROR",
     "a memory error could not be contained: every application on the GPU is "
     "affected",
     "reset the GPU before running anything on it again", SEV_RESET},
    {109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "the GPU timed out while switching between contexts",
     "reset the GPU; report it if it repeats", SEV_RESET},
    {119, "GSP_RPC_TIMEOUT",
     "the GPU's system processor (GSP firmware) did not answer the driver in "
     "time; the GPU may hang or be slow",
     "reset the GPU or power-cycle the node; if it returns, update the driver "
     "and report it",
     SEV_RESET},
    {120, "GSP_ERROR", "the GPU's system processor (GSP firmware) reported an error",
     "reset the GPU or power-cycle the node; if it returns, update the driver "
     "and report it",
     SEV_RESET},
    {121, "C2C_ERROR",
     "corrected errors on the chip-to-chip link to a Grace CPU; the data is "
     "right and work continues",
     "no immediate action; reset the GPU in a maintenance window to retrain "
     "the link",
     SEV_WARN},
    {122, "SPI_PMU_RPC_READ_FAIL", "reading the GPU's on-board SPI flash through its micro-controller failed",
     "contact the vendor; the board firmware storage may be faulty", SEV_RESET},
    {123, "SPI_PMU_RPC_WRITE_FAIL", "writing the GPU's on-board SPI flash through its micro-controller failed",
     "contact the vendor; the board firmware storage may be faulty", SEV_RESET},
    {124, "SPI_PMU_RPC_ERASE_FAIL", "erasing the GPU's on-board SPI flash through its micro-controller failed",
     "contact the vendor; the board firmware storage may be faulty", SEV_RESET},
    {125, "INFOROM_FS_ERROR",
     "the file system of the GPU's InfoROM (its on-board record store) is "
     "damaged",
     "contact the vendor; the InfoROM may need to be reflashed", SEV_RESET},
    {140, "UNRECOVERABLE_ECC_ERROR_ESCAPE",
     "uncorrectable memory errors happened in a way that kept the driver from "
     "retiring or remapping the memory",
     "reset the GPU; if it happens again, contact the vendor", SEV_RESET},
    {154, "GPU_RECOVERY_ACTION_CHANGED",
     "the driver changed the recovery action the GPU needs, as a result of "
     "another Xid; the detail names the new "
     "action (none, drain, GPU reset, node reboot)",
     "do what the detail says, and read the Xid that came just before it", SEV_WARN},
};

static int compare_xid(const void *key, const void *entry) {
  int a = *(const int *)key;
  int b = ((const struct gw_xid_info *)entry)->xid;
  return (a > b) - (a < b);
}

const struct gw_xid_info *gw_xid_lookup(int xid) {
  return bsearch(&xid, xid_table, sizeof xid_table / sizeof xid_table[0], sizeof xid_table[0], compare_xid);
}
