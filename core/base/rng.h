/* A tiny seeded generator (splitmix64): the same seed gives the same stream on every machine,
 * which the builders and the tests rely on for bitwise-repeatable results. */
#ifndef OPSIM_RNG_H
#define OPSIM_RNG_H

#include <stdint.h>

typedef struct op_rng {
    uint64_t state;
} op_rng;

static inline op_rng op_rng_seeded(uint64_t seed) { return (op_rng){ seed }; }

static inline uint64_t op_rng_next(op_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double op_rng_uniform(op_rng *rng) { return (double)(op_rng_next(rng) >> 11) * 0x1.0p-53; }

/* Uniform integer in [0, bound), bound > 0 (the tiny modulo bias is irrelevant here). */
static inline int op_rng_below(op_rng *rng, int bound) { return (int)(op_rng_next(rng) % (uint64_t)bound); }

#endif
