/* The two triangular substitutions of the LDLᵀ solve (core/kernels/sparse.c), written once over
 * lanes (kernels/lanes.h): w = L⁻¹ P b, v = D⁻¹ w, then Lᵀ x' = v in place in v, each of the three
 * columns a chain of its own in the lanes of one row. sparse.c includes this file once for each
 * width it runs: one lane (the scalar build), two SSE2 lanes, four AVX lanes (one solve, and four
 * side by side) and eight AVX-512 lanes (four solves, two a register). Every lane does the same
 * operations in the same order at every width (x − l·w for each entry of L's row, then x / d;
 * no fused multiply-add: none is enabled), so each solve's bits are the same whichever width runs
 * it (tests/test_sparse.c compares them).
 *
 * A row of w and v holds ROW doubles: one solve's (x, y, z, pad), or at eight lanes two solves'
 * side by side ([n][2][4]). The row is PARTS registers, as many as its used doubles need: three
 * at one lane (the pad is never computed), (x, y) and (z, pad) at two, one at four and eight;
 * a pad lane starts at 0 and is never read back into x, y or z. STREAMS rows of separate
 * workspaces go side by side, their latency chains independent, which one substitution alone
 * leaves idle; each one's operations are exactly as alone.
 *
 * The includer defines LANE, LANES, LANES_NAME(name), L(op) (kernels/lanes.h) and STREAMS, has
 * op_sparse_factor's definition in scope, and calls the function from one of its own of the same
 * width (between the same OP_SIMD_ pragmas): it is always inlined, so that a one-solve caller's
 * pointers, taken by value and passed here as one-element arrays, stay in registers instead of
 * being read again from the arrays after every store. No include guard: one inclusion per width
 * and STREAMS, and the definitions are undone at the end. */

#define ROW (LANES < 4 ? 4 : LANES)
#define SOLVES_A_ROW (ROW / 4)
#define PARTS ((ROW - 1 + LANES - 1) / LANES)

/* rhs[STREAMS·SOLVES_A_ROW] the right-hand sides ([n][3], in the caller's order: read through
 * the factor's permutation), w[STREAMS] and v[STREAMS] the rows of w and v, [n][ROW] each; v
 * returns x' = P x, rhs is only read. */
static inline __attribute__((always_inline)) void LANES_NAME(substitute)(const op_sparse_factor *f,
                                                                        double *const rhs[], double *const w[],
                                                                        double *const v[])
{
    int n = f->n;
    const int *perm = f->perm, *start = f->column_start, *row = f->row, *row_start = f->row_start,
              *column = f->column;
    const double *value = f->value, *row_value = f->row_value, *pivot = f->pivot;
    for (int i = 0; i < n; ++i) {
        LANE x[STREAMS][PARTS];
        for (int s = 0; s < STREAMS; ++s) {
            const double *b[SOLVES_A_ROW];
            for (int k = 0; k < SOLVES_A_ROW; ++k)
                b[k] = &rhs[SOLVES_A_ROW * s + k][3 * perm[i]];
            for (int r = 0; r < PARTS; ++r)
                x[s][r] = L(load_padded3)(b, r);
        }
        for (int p = row_start[i]; p < row_start[i + 1]; ++p) {
            LANE l = L(all)(row_value[p]);
            for (int s = 0; s < STREAMS; ++s)
                for (int r = 0; r < PARTS; ++r)
                    x[s][r] = L(sub)(x[s][r], L(mul)(l, L(load)(w[s] + ROW * column[p] + LANES * r)));
        }
        /* read into every lane at once: a value loaded first would take three instructions to
         * spread over four AVX lanes, one broadcast from memory */
        LANE d = L(broadcast)(&pivot[i]);
        for (int s = 0; s < STREAMS; ++s)
            for (int r = 0; r < PARTS; ++r) {
                L(store)(w[s] + ROW * i + LANES * r, x[s][r]);
                L(store)(v[s] + ROW * i + LANES * r, L(div)(x[s][r], d));
            }
    }
    for (int j = n - 1; j >= 0; --j) {
        LANE x[STREAMS][PARTS];
        for (int s = 0; s < STREAMS; ++s)
            for (int r = 0; r < PARTS; ++r)
                x[s][r] = L(load)(v[s] + ROW * j + LANES * r);
        for (int p = start[j]; p < start[j + 1]; ++p) {
            LANE l = L(all)(value[p]);
            for (int s = 0; s < STREAMS; ++s)
                for (int r = 0; r < PARTS; ++r)
                    x[s][r] = L(sub)(x[s][r], L(mul)(l, L(load)(v[s] + ROW * row[p] + LANES * r)));
        }
        for (int s = 0; s < STREAMS; ++s)
            for (int r = 0; r < PARTS; ++r)
                L(store)(v[s] + ROW * j + LANES * r, x[s][r]);
    }
}

#undef ROW
#undef SOLVES_A_ROW
#undef PARTS
#undef LANE
#undef LANES
#undef LANES_NAME
#undef L
#undef STREAMS
