/* Dense peaks per GPU model. Data sheets quote tensor-core figures "with
 * sparsity" (2:4 structured): those are halved here, since a training job's
 * matrices are dense. Each clock is the one the sheet's figures imply
 * (SMs x FLOP per SM per clock x clock = the quoted figure). */
#include "analysis/gpu_peaks.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#define NA NAN

struct peak_match {
  const char *token; /* matched as a whole word of the name (the next character is not alphanumeric) */
  const char *also;  /* a second word the name must hold, NULL none */
  struct gw_gpu_peak peak;
};

/* Most specific first: "H100 NVL" before "H100", "L40S" before "L40". */
static const struct peak_match PEAKS[] = {
    /* NVIDIA H100 Tensor Core GPU data sheet (nvidia.com/en-us/data-center/h100, 2023): H100 NVL FP32 60,
     * TF32 835*, BF16/FP16 1,671*, FP8 3,341* TFLOPS (* with sparsity); 132 SMs, 4,096 dense FP16 FLOP/clk/SM:
     * the figures imply 1,545 MHz */
    {"H100", "NVL", {"H100 NVL", {60, 417.5, 835.5, 835.5, 1670.5}, 1545}},
    /* same sheet, H100 PCIe: FP32 51, TF32 756*, BF16/FP16 1,513*, FP8 3,026*; 114 SMs: 1,620 MHz */
    {"H100", "PCIe", {"H100 PCIe", {51, 378, 756.5, 756.5, 1513}, 1620}},
    /* same sheet, H100 SXM: FP32 67, TF32 989*, BF16/FP16 1,979*, FP8 3,958*; 132 SMs: 1,830 MHz
     * (names "NVIDIA H100 80GB HBM3", "NVIDIA H100") */
    {"H100", NULL, {"H100 SXM", {67, 494.7, 989.4, 989.4, 1978.9}, 1830}},
    /* NVIDIA H200 Tensor Core GPU data sheet (2024): H200 NVL FP32 60, TF32 835*, BF16/FP16 1,671*, FP8 3,341* */
    {"H200", "NVL", {"H200 NVL", {60, 417.5, 835.5, 835.5, 1670.5}, 1545}},
    /* same sheet, H200 SXM: FP32 67, TF32 989*, BF16/FP16 1,979*, FP8 3,958* (the H100 SXM's compute) */
    {"H200", NULL, {"H200 SXM", {67, 494.7, 989.4, 989.4, 1978.9}, 1830}},
    /* NVIDIA A100 Tensor Core GPU data sheet (2021): FP32 19.5, TF32 156, BF16/FP16 312 dense (624* sparse), no
     * FP8; the same for SXM4 and PCIe, 40 and 80 GB; 108 SMs at the 1,410 MHz boost clock */
    {"A100", "PCIE", {"A100 PCIe", {19.5, 156, 312, 312, NA}, 1410}},
    {"A100", NULL, {"A100 SXM", {19.5, 156, 312, 312, NA}, 1410}},
    /* NVIDIA A30 data sheet: FP32 10.3, TF32 82, BF16/FP16 165; boost 1,440 MHz */
    {"A30", NULL, {"A30", {10.3, 82, 165, 165, NA}, 1440}},
    /* NVIDIA A10 data sheet: FP32 31.2, TF32 62.5, BF16/FP16 125 dense (250* sparse); boost 1,695 MHz */
    {"A10", NULL, {"A10", {31.2, 62.5, 125, 125, NA}, 1695}},
    /* NVIDIA A40 data sheet: FP32 37.4, TF32 74.8, BF16/FP16 149.7 dense; boost 1,740 MHz */
    {"A40", NULL, {"A40", {37.4, 74.8, 149.7, 149.7, NA}, 1740}},
    /* NVIDIA L40S data sheet (2023): FP32 91.6, TF32 366*, BF16/FP16 733*, FP8 1,466*; boost 2,520 MHz */
    {"L40S", NULL, {"L40S", {91.6, 183, 362.05, 362.05, 733}, 2520}},
    /* NVIDIA L40 data sheet: FP32 90.5, TF32 181*, BF16/FP16 362.1*, FP8 724*; boost 2,490 MHz */
    {"L40", NULL, {"L40", {90.5, 90.5, 181.05, 181.05, 362}, 2490}},
    /* NVIDIA L4 data sheet (2023): FP32 30.3, TF32 120*, BF16/FP16 242*, FP8 485*; boost 2,040 MHz */
    {"L4", NULL, {"L4", {30.3, 60, 121, 121, 242.5}, 2040}},
    /* NVIDIA V100 data sheet (2020): SXM2 FP32 15.7, tensor FP16 125 (no TF32, BF16, FP8); boost 1,530 MHz */
    {"V100", "PCIE", {"V100 PCIe", {14, NA, NA, 112, NA}, 1380}},
    {"V100", NULL, {"V100 SXM2", {15.7, NA, NA, 125, NA}, 1530}},
    /* NVIDIA T4 data sheet: FP32 8.1, FP16 mixed 65; boost 1,590 MHz */
    {"T4", NULL, {"T4", {8.1, NA, NA, 65, NA}, 1590}},
};

/* 1 when token is a word of name (case-insensitive; the character after it is not alphanumeric). */
static int has_word(const char *name, const char *token) {
  size_t n = strlen(token);
  for (const char *p = name; *p; p++) {
    if ((p == name || !isalnum((unsigned char)p[-1])) && strncasecmp(p, token, n) == 0 && !isalnum((unsigned char)p[n]))
      return 1;
  }
  return 0;
}

const struct gw_gpu_peak *gw_gpu_peak_for(const char *gpu_name) {
  if (!gpu_name || !gpu_name[0])
    return NULL;
  for (size_t i = 0; i < sizeof PEAKS / sizeof *PEAKS; i++)
    if (has_word(gpu_name, PEAKS[i].token) && (!PEAKS[i].also || has_word(gpu_name, PEAKS[i].also)))
      return &PEAKS[i].peak;
  return NULL;
}

int gw_gpu_model_has_gpm(const char *gpu_name) {
  /* GPM came with Hopper (compute capability 9.0); NVML refuses it before */
  static const char *const gpm_models[] = {"H100", "H200", "H800", "H20", "GH200", "B100", "B200", "GB200", "B300"};
  if (!gpu_name || !gpu_name[0])
    return -1;
  for (size_t i = 0; i < sizeof gpm_models / sizeof *gpm_models; i++)
    if (has_word(gpu_name, gpm_models[i]))
      return 1;
  return gw_gpu_peak_for(gpu_name) ? 0 : -1;
}

const char *gw_peak_dtype_name(enum gw_peak_dtype d) {
  static const char *const names[GW_PEAK_NDTYPES] = {"FP32", "TF32", "BF16", "FP16", "FP8"};
  return d >= 0 && d < GW_PEAK_NDTYPES ? names[d] : "?";
}

int gw_peak_dtype_of_torch(const char *t) {
  if (!t)
    return -1;
  if (strcmp(t, "bfloat16") == 0)
    return GW_PEAK_BF16;
  if (strcmp(t, "float16") == 0 || strcmp(t, "half") == 0)
    return GW_PEAK_FP16;
  if (strcmp(t, "tf32") == 0)
    return GW_PEAK_TF32;
  if (strcmp(t, "float32") == 0 || strcmp(t, "float") == 0)
    return GW_PEAK_FP32;
  if (strncmp(t, "float8", 6) == 0)
    return GW_PEAK_FP8;
  return -1;
}
