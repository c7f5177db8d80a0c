/* A radix-2 complex FFT in double precision, for the autocorrelation of long
 * series (the period search) in O(n log n).
 *
 * Written here rather than taken from a library: Debian's libkissfft-dev ships
 * only the float build (24-bit mantissa: an autocorrelation of 10^6 samples
 * would move by ~1e-4 and flip the period search's comparisons), pocketfft
 * is not packaged for C, and FFTW is GPL. The period search needs one
 * power-of-two transform size, which radix-2 covers in ~60 lines. */
#ifndef GW_FFT_H
#define GW_FFT_H

#include <stddef.h>

/* Smallest power of two >= n (n >= 1); 0 when it would overflow size_t. */
size_t gw_fft_size_at_least(size_t n);

/* In place, forward (X[k] = sum x[j] e^{-2 pi i jk/m}) transform of the m
 * complex values re[] + i im[]; m a power of two. Returns 0, or -1 when m is
 * not a power of two. Rounding error grows as log2(m) x DBL_EPSILON relative
 * to the values' root mean square. */
int gw_fft_radix2(double *re, double *im, size_t m);

#endif
