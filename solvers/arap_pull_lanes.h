/* The global step's rotation pull (solvers/arap.c, rotation_pull) written once over lanes
 * (core/kernels/lanes.h). A particle's turn R − P is stored a column at a time (turns_into), so
 * (R − P) v for one neighbour is its three columns scaled by v's entries and summed, each lane a
 * row (or a row of one body of a group) through rotation_pull's operations in their order,
 * (t_0 v_0 + t_1 v_1) + t_2 v_2. arap.c includes it for two lanes (two rows a register), four (a
 * body's three rows and a zero, or one row of four bodies) and eight (two bodies' four). The
 * includer defines LANE, LANES_NAME(name) and L(op) as lanes.h says; they are undone at the end.
 * No include guard: one inclusion per width. */

/* t_0 v_0 + t_1 v_1 + t_2 v_2, column c's lanes from t + c · column_stride */
static inline __attribute__((always_inline)) LANE LANES_NAME(turn_times)(const double *t, size_t column_stride,
                                                                        LANE v0, LANE v1, LANE v2)
{
    return L(add)(L(add)(L(mul)(L(load)(t), v0), L(mul)(L(load)(t + column_stride), v1)),
                  L(mul)(L(load)(t + 2 * column_stride), v2));
}

#undef LANE
#undef LANES_NAME
#undef L
