/* The statistics of the timing protocol (docs/timing.md): a timed quantity's repetitions reduced
 * to their median with a distribution-free 95 % interval, a cell marked noisy when that interval
 * is wide, the CPU the numbers were taken on, and the calling thread's CPU clock.
 *
 * The interval is the order-statistic one for the median: with the n samples sorted,
 * [x(j), x(n+1−j)] (1-based) for the largest j whose binomial tail P(B ≤ j−1), B ~ Bin(n, ½),
 * is at most 2.5 %; it holds the true median with probability at least 95 % whatever the
 * distribution, so long as the repetitions are independent. It needs no seed and no model of the
 * noise; timings are skewed (a slow spell only adds), which a symmetric interval would misread.
 * Below six samples no rank reaches 95 % (2·2^−n > 5 %): the interval is then the whole range,
 * and the summary is marked noisy, too few repetitions to tell. */
#ifndef OPSIM_TIMING_STATS_H
#define OPSIM_TIMING_STATS_H

/* The smallest sample whose order-statistic interval reaches 95 %. */
enum { OP_TIMING_MIN_SAMPLES = 6 };
/* A summary is noisy when its interval's half-width is over this share of its median. */
#define OP_TIMING_NOISY_SHARE 0.05

typedef struct op_timing_summary {
    int n;         /* samples */
    double median; /* NAN when n = 0 */
    double lo, hi; /* the 95 % interval (above); the range when n < OP_TIMING_MIN_SAMPLES */
    int noisy;     /* (hi − lo) / 2 > OP_TIMING_NOISY_SHARE · median, or n < OP_TIMING_MIN_SAMPLES */
} op_timing_summary;

/* The 1-based rank j of the interval's lower end for n samples (the upper end's is n + 1 − j);
 * 1 when n < OP_TIMING_MIN_SAMPLES (the range), 0 when n < 1. */
int op_timing_interval_rank(int n);

/* Median, interval and noisy flag of v[0 .. n); sorts v in place. */
op_timing_summary op_timing_summarize(double *v, int n);

/* The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): beside a repetition's wall
 * time it shows how much of that wall time the thread was not running (another job had the
 * core). NAN where the clock is missing. */
double op_thread_cpu_seconds(void);

/* The CPU's model name (/proc/cpuinfo's "model name", or "unknown") into name[size], so that a
 * table names the machine beside every ratio it prints. Returns name. */
const char *op_cpu_model(char *name, int size);

#endif
