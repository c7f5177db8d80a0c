/* The dense math peak of a GPU model per dtype, from the vendor's data
 * sheets, chosen from the recorded GPU name; MFU's denominator. */
#ifndef GW_GPU_PEAKS_H
#define GW_GPU_PEAKS_H

enum gw_peak_dtype {
  GW_PEAK_FP32, /* CUDA cores, no tensor cores */
  GW_PEAK_TF32, /* fp32 inputs on tensor cores (torch's allow_tf32) */
  GW_PEAK_BF16,
  GW_PEAK_FP16,
  GW_PEAK_FP8,
  GW_PEAK_NDTYPES
};

struct gw_gpu_peak {
  const char *model;              /* "H100 SXM", as said in the report */
  double tflops[GW_PEAK_NDTYPES]; /* dense, TFLOP/s; NAN where the GPU has no such unit */
  double clock_mhz;               /* the SM clock the figures assume */
};

/* The peak table's entry for a recorded GPU name ("NVIDIA H200",
 * "NVIDIA A100-SXM4-80GB"); NULL for a GPU not in the table. */
const struct gw_gpu_peak *gw_gpu_peak_for(const char *gpu_name);

/* Whether a GPU model has GPM (NVML's GPU Performance Monitoring, the source
 * of SM activity): 1 for Hopper and later (H100, H200, H800, H20, GH200,
 * Blackwell), 0 for a model of the table before them (A100, L40, V100, ...),
 * -1 for a name it does not know. What a report may say the GPU lacks. */
int gw_gpu_model_has_gpm(const char *gpu_name);

/* "bf16" ... for the report; and the dtype for a torch dtype name as the
 * hook writes it ("bfloat16", "float16", "tf32", "float32",
 * "float8_e4m3fn"), -1 for any other (integer ops, float64). */
const char *gw_peak_dtype_name(enum gw_peak_dtype d);
int gw_peak_dtype_of_torch(const char *torch_dtype);

#endif
