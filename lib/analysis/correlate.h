/* How GPU dips line up with host signals. */
#ifndef GW_CORRELATE_H
#define GW_CORRELATE_H

#include <stddef.h>

/* Pearson correlation over the pairs where both are known; NAN when fewer
 * than 3 pairs or one side is constant. *pairs gets the count (may be NULL). */
double gw_pearson(const double *x, const double *y, size_t n, size_t *pairs);

/* Mean of y over the entries where mask is non-zero (want = 1) or zero
 * (want = 0), skipping NAN y; NAN when none. */
double gw_mean_where(const double *y, const unsigned char *mask, size_t n, int want);

#endif
