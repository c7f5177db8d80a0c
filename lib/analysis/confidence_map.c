/* Raw rule score -> calibrated confidence, through the generated bands
 * (confidence_calibration.c). */
#include "confidence_calibration.h"

double gw_confidence_calibrated(double raw) {
  if (gw_confidence_nbands <= 0)
    return raw;
  for (int i = 0; i < gw_confidence_nbands; i++)
    if (raw + 1e-6 < gw_confidence_bands[i].raw_hi) /* sums of 0.05 steps land a hair under an edge */
      return gw_confidence_bands[i].calibrated;
  return gw_confidence_bands[gw_confidence_nbands - 1].calibrated;
}
