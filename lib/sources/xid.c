/* The Xid code table: what each driver error code means for someone training
 * a model, and what to do about it. Codes and mnemonics follow the driver's
 * nverror.h; the advice follows NVIDIA's Xid catalog (its "resolution bucket"
 * decides the severity). Sorted by code for the binary search below.
 * Meanings and advice are marked for the catalog: gpuwhy check translates
 * them where it prints them; recordings keep the English. */
#include "kmsg.h"

#include "core/i18n.h"

#include <stddef.h>
#include <stdlib.h>

enum { SEV_APP = 0, SEV_WARN = 1, SEV_RESET = 2 };

static const struct gw_xid_info xid_table[] = {
    {8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT",
     N_("the GPU stopped making progress on a channel and the driver timed it out"),
     N_("restart the application; if it keeps happening, check for a hang in the "
        "kernel code or a driver problem"),
     SEV_APP},
    {13, "ROBUST_CHANNEL_GR_EXCEPTION",
     N_("the compute engine raised an exception, most often a kernel reading or "
        "writing out of bounds or running an "
        "illegal instruction"),
     N_("restart the job; find the faulting kernel with compute-sanitizer "
        "(memcheck) or CUDA_LAUNCH_BLOCKING=1"),
     SEV_APP},
    {31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT",
     N_("GPU memory page fault: something on the GPU touched an address it does "
        "not own, usually a bug in the "
        "application or an extension kernel"),
     N_("restart the job; run it under compute-sanitizer to find the illegal "
        "access"),
     SEV_APP},
    {32, "ROBUST_CHANNEL_PBDMA_ERROR",
     N_("the DMA engine that feeds commands to the GPU saw a broken command "
        "stream, mostly a PCIe signal quality problem"),
     N_("restart the job; if it repeats, check the PCIe link (width, speed, "
        "replay counters) and the riser or slot"),
     SEV_WARN},
    {43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR",
     N_("the driver stopped one application's work after a fault in that "
        "application; the GPU itself stays healthy"),
     N_("restart the application; other jobs on the GPU keep running"), SEV_APP},
    {44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", N_("the compute engine faulted while switching between contexts"),
     N_("note it; if it repeats, update the driver or report it to the vendor"), SEV_WARN},
    {45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL",
     N_("the driver tore down an application's GPU work, because the process was "
        "killed (Ctrl-C, OOM killer, "
        "signal) or after an earlier error"),
     N_("on its own it is harmless; when other Xids come with it, follow those"), SEV_APP},
    {46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", N_("the GPU stopped processing and did not recover"),
     N_("reset the GPU (nvidia-smi -r) or reboot the node; report it if it "
        "repeats"),
     SEV_RESET},
    {48, "ROBUST_CHANNEL_GPU_ECC_DBE",
     N_("an uncorrectable (double-bit) ECC memory error; the application using "
        "that memory got wrong data"),
     N_("reset the GPU or reboot the node; check nvidia-smi -q -d ECC and plan a "
        "replacement if the errors repeat"),
     SEV_RESET},
    {61, "PMU_BREAKPOINT",
     N_("the GPU's internal power-management micro-controller hit a breakpoint (a "
        "warning)"),
     N_("note it; if it comes with other errors or repeats, update the driver or "
        "contact the vendor"),
     SEV_WARN},
    {62, "PMU_HALT_ERROR", N_("the GPU's internal power-management micro-controller halted"),
     N_("reset the GPU; if it returns, contact the vendor"), SEV_RESET},
    {63, "INFOROM_DRAM_RETIREMENT_EVENT",
     N_("the GPU recorded a memory row remap (or page retirement) after ECC "
        "errors; the repair takes effect at the "
        "next GPU reset"),
     N_("no immediate action; reset the GPU at a convenient time so the remap is "
        "applied"),
     SEV_WARN},
    {64, "INFOROM_DRAM_RETIREMENT_FAILURE",
     N_("the GPU could not remap or retire a failing memory row: the memory is "
        "faulty beyond self-repair"),
     N_("reset the GPU; if it fails again, take the GPU out of service and "
        "contact the vendor"),
     SEV_RESET},
    {74, "NVLINK_ERROR",
     N_("an NVLink connection to another GPU or NVSwitch failed (training, CRC or "
        "replay errors); the far end may be the "
        "real culprit"),
     N_("reset the GPU or reboot the node; check nvidia-smi nvlink -e on both "
        "ends; call the vendor if it persists"),
     SEV_RESET},
    {79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
     N_("the GPU no longer answers on PCIe: it is lost to the system, and every "
        "job on it is dead"),
     N_("reboot the node; check the kernel log for PCIe errors, power and "
        "cooling; report the hardware if it repeats"),
     SEV_RESET},
    {92, "EXCESSIVE_SBE_INTERRUPTS",
     N_("many correctable (single-bit) ECC errors in a short time; the data is "
        "still right, but the memory is wearing"),
     N_("keep an eye on the ECC counters; plan a GPU reset and a check of the "
        "board"),
     SEV_WARN},
    {94, "ROBUST_CHANNEL_CONTAINED_ERROR",
     N_("a memory error was contained to one application, which has to restart; "
        "other applications are unaffected"),
     N_("restart the affected job; reset the GPU when convenient"), SEV_APP},
    {95, "ROBUST_CHANNEL_UNCONTAINED_ERROR",
     N_("a memory error could not be contained: every application on the GPU is "
        "affected"),
     N_("reset the GPU before running anything on it again"), SEV_RESET},
    {109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", N_("the GPU timed out while switching between contexts"),
     N_("reset the GPU; report it if it repeats"), SEV_RESET},
    {119, "GSP_RPC_TIMEOUT",
     N_("the GPU's system processor (GSP firmware) did not answer the driver in "
        "time; the GPU may hang or be slow"),
     N_("reset the GPU or power-cycle the node; if it returns, update the driver "
        "and report it"),
     SEV_RESET},
    {120, "GSP_ERROR", N_("the GPU's system processor (GSP firmware) reported an error"),
     N_("reset the GPU or power-cycle the node; if it returns, update the driver "
        "and report it"),
     SEV_RESET},
    {121, "C2C_ERROR",
     N_("corrected errors on the chip-to-chip link to a Grace CPU; the data is "
        "right and work continues"),
     N_("no immediate action; reset the GPU in a maintenance window to retrain "
        "the link"),
     SEV_WARN},
    {122, "SPI_PMU_RPC_READ_FAIL", N_("reading the GPU's on-board SPI flash through its micro-controller failed"),
     N_("contact the vendor; the board firmware storage may be faulty"), SEV_RESET},
    {123, "SPI_PMU_RPC_WRITE_FAIL", N_("writing the GPU's on-board SPI flash through its micro-controller failed"),
     N_("contact the vendor; the board firmware storage may be faulty"), SEV_RESET},
    {124, "SPI_PMU_RPC_ERASE_FAIL", N_("erasing the GPU's on-board SPI flash through its micro-controller failed"),
     N_("contact the vendor; the board firmware storage may be faulty"), SEV_RESET},
    {125, "INFOROM_FS_ERROR",
     N_("the file system of the GPU's InfoROM (its on-board record store) is "
        "damaged"),
     N_("contact the vendor; the InfoROM may need to be reflashed"), SEV_RESET},
    {140, "UNRECOVERABLE_ECC_ERROR_ESCAPE",
     N_("uncorrectable memory errors happened in a way that kept the driver from "
        "retiring or remapping the memory"),
     N_("reset the GPU; if it happens again, contact the vendor"), SEV_RESET},
    {154, "GPU_RECOVERY_ACTION_CHANGED",
     N_("the driver changed the recovery action the GPU needs, as a result of "
        "another Xid; the detail names the new "
        "action (none, drain, GPU reset, node reboot)"),
     N_("do what the detail says, and read the Xid that came just before it"), SEV_WARN},
};

static int compare_xid(const void *key, const void *entry) {
  int a = *(const int *)key;
  int b = ((const struct gw_xid_info *)entry)->xid;
  return (a > b) - (a < b);
}

const struct gw_xid_info *gw_xid_lookup(int xid) {
  return bsearch(&xid, xid_table, sizeof xid_table / sizeof xid_table[0], sizeof xid_table[0], compare_xid);
}

/* Codes a program causes on a healthy GPU: its kernel raised an exception or
 * touched memory it does not own (13, 31), its channel was torn down after
 * such a fault (43), or it was killed while it ran (45). Every other code
 * (ECC, NVLink, a GPU off the bus, GSP, timeouts) points at the GPU, the
 * driver or the board; 94, a contained ECC error, restarts only the program
 * but is still a memory fault. */
int gw_xid_is_program_fault(int xid) {
  return xid == 13 || xid == 31 || xid == 43 || xid == 45;
}
