/* Calibrated confidence: a rule's raw score (the additive evidence score
 * of its rule file) mapped to the rate at which findings of that score were
 * right on the labelled corpus. The bands are generated
 * (scripts/calibrate_confidence.py) from the accuracy harness; the corpus is
 * named in confidence_calibration.c. */
#ifndef GW_CONFIDENCE_CALIBRATION_H
#define GW_CONFIDENCE_CALIBRATION_H

struct gw_confidence_band {
  double raw_lo, raw_hi; /* raw scores in [lo, hi) */
  int findings, right;   /* on the corpus: findings in the band, and of those naming a true class */
  double calibrated;     /* the rate, monotonic over the bands and smoothed (Laplace) */
};

extern const struct gw_confidence_band gw_confidence_bands[];
extern const int gw_confidence_nbands;

/* The calibrated confidence of a raw score: its band's rate; a score below
 * the first band takes the first, above the last the last. */
double gw_confidence_calibrated(double raw);

#endif
