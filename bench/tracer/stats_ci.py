"""The mean and its 95% Student's t interval, shared by the scripts that turn interleaved benchmark rounds into a
figure (bench/tracer/rounds.py, 0179f52:scripts/h200/plans/pmcost4_summary.py and pmcost_pool.py). Standard library only."""
import math
import statistics

# Two-sided 95% quantiles of Student's t, by degrees of freedom (1..30); beyond 30, 1.96 is close enough.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def mean_ci(values):
    """Mean and the half-width of its 95% t interval (nan with one value)."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, float("nan")
    t = T95[len(values) - 2] if len(values) - 1 <= len(T95) else 1.96
    return m, t * statistics.stdev(values) / math.sqrt(len(values))


def median_ci(values):
    """Median and its distribution-free 95% interval (lo, hi): the order statistics whose ranks the binomial
    distribution of the values below the median puts 1.96 standard deviations either side of n/2. It holds
    whatever the spread's shape: a few rounds hit by the host's own hiccups widen the mean's t interval, not this
    one. (nan, nan) with fewer than 6 values."""
    v = sorted(values)
    n = len(v)
    m = statistics.median(v)
    if n < 6:
        return m, float("nan"), float("nan")
    half = 0.98 * math.sqrt(n)  # 1.96 * sqrt(n) / 2
    # ranks j = floor(n/2 - half) and k = ceil(1 + n/2 + half), counted from 1
    lo = max(0, int(math.floor(n / 2 - half)) - 1)
    hi = min(n - 1, int(math.ceil(1 + n / 2 + half)) - 1)
    return m, v[lo], v[hi]
