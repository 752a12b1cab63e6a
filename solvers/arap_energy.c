/* The arap family's own evaluation of E and ∂E/∂x in one pass over the undirected edges
 * (arap_energy.h says what it holds and why it agrees with the yardstick). */
#include "arap_energy.h"

#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "sim/energy.h"

/* The upper triangle (00, 01, 02, 11, 12, 22) of a symmetric 3×3 matrix. */
static void upper(double out[6], const double m[9])
{
    out[0] = m[0];
    out[1] = m[1];
    out[2] = m[2];
    out[3] = m[4];
    out[4] = m[5];
    out[5] = m[8];
}

/* tr(D S Dᵀ) = Σ_ab S_ab (D_a · D_b) over the columns D_a of D, S symmetric (upper, above):
 * six 3-vector products, each column pair once. */
static inline double symmetric_form(const double d[9], const double s[6])
{
    double g00 = d[0] * d[0] + d[3] * d[3] + d[6] * d[6], g11 = d[1] * d[1] + d[4] * d[4] + d[7] * d[7];
    double g22 = d[2] * d[2] + d[5] * d[5] + d[8] * d[8], g01 = d[0] * d[1] + d[3] * d[4] + d[6] * d[7];
    double g02 = d[0] * d[2] + d[3] * d[5] + d[6] * d[8], g12 = d[1] * d[2] + d[4] * d[5] + d[7] * d[8];
    return (s[0] * g00 + s[3] * g11 + s[5] * g22) + 2.0 * (s[1] * g01 + s[2] * g02 + s[4] * g12);
}

void op_arap_energy_free(op_arap_energy *data)
{
    OP_FREE(data->ends);
    OP_FREE(data->rest);
    OP_FREE(data->moments);
    OP_FREE(data->moment);
}

int op_arap_energy_init(op_ctx *ctx, op_arap_energy *data, const op_graph *graph)
{
    memset(data, 0, sizeof *data);
    int n = graph->particle_count, edges = graph->edge_count;
    data->n = n;
    data->edge_count = edges;
    size_t e = (size_t)(edges > 0 ? edges : 1);
    data->ends = op_calloc(ctx, 2 * e, sizeof(int));
    data->rest = op_calloc(ctx, 3 * e, sizeof(double));
    data->moments = op_calloc(ctx, 6 * e, sizeof(double));
    data->moment = op_calloc(ctx, 6 * (size_t)(n > 0 ? n : 1), sizeof(double));
    if (ctx->status != OP_OK) {
        op_arap_energy_free(data);
        return ctx->status;
    }
    op_graph_edges(graph, data->ends);
    for (int i = 0; i < n; ++i)
        upper(&data->moment[6 * i], &graph->rest_moment[9 * i]);
    for (int k = 0; k < edges; ++k) {
        int i = data->ends[2 * k], j = data->ends[2 * k + 1];
        double sum[9];
        m3_add(sum, &graph->rest_moment[9 * i], &graph->rest_moment[9 * j]);
        upper(&data->moments[6 * k], sum);
        v3_sub(&data->rest[3 * k], &graph->rest_position[3 * j], &graph->rest_position[3 * i]);
    }
    return OP_OK;
}

/* E^k, and its ∂/∂x into gradient (which it initialises) */
static double kinetic(const op_arap_energy *data, const op_body *body, double h, double *gradient)
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double sum = 0.0, inv_h2 = 1.0 / (h * h);
    for (int i = 0; i < data->n; ++i) {
        double dr[9], dx[3];
        m3_sub(dr, &s->rotation[9 * i], &body->inertial_rotation[9 * i]);
        v3_sub(dx, &s->position[3 * i], &body->inertial_position[3 * i]);
        sum += g->density * symmetric_form(dr, &data->moment[6 * i]) + g->mass[i] * v3_dot(dx, dx);
        if (gradient)
            v3_scale(&gradient[3 * i], dx, g->mass[i] * inv_h2);
    }
    return sum / (2.0 * h * h);
}

/* E^e over the undirected edges, and its ∂/∂x added into gradient */
static double elastic(const op_arap_energy *data, const op_body *body, double *gradient)
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double k = body->stiffness, sum = 0.0;
    for (int e = 0; e < data->edge_count; ++e) {
        int i = data->ends[2 * e], j = data->ends[2 * e + 1];
        const double *ri = &s->rotation[9 * i], *rj = &s->rotation[9 * j], *rest = &data->rest[3 * e];
        double dr[9], now[3], res_i[3], res_j[3];
        m3_sub(dr, ri, rj);
        v3_sub(now, &s->position[3 * j], &s->position[3 * i]);
        m3_mul_v(res_i, ri, rest);
        v3_sub(res_i, res_i, now);
        m3_mul_v(res_j, rj, rest);
        v3_sub(res_j, res_j, now);
        double vi = g->volume[i], vj = g->volume[j];
        sum += symmetric_form(dr, &data->moments[6 * e]) + (vj * v3_dot(res_i, res_i) + vi * v3_dot(res_j, res_j));
        if (gradient) {
            /* particle i: k (v_j res_i + v_i res_j); particle j sees d̄, d and both residuals negated */
            double pull[3];
            v3_scale(pull, res_i, k * vj);
            v3_axpy(pull, k * vi, res_j);
            v3_add(&gradient[3 * i], &gradient[3 * i], pull);
            v3_sub(&gradient[3 * j], &gradient[3 * j], pull);
        }
    }
    return 0.5 * k * sum;
}

double op_arap_energy_eval(const op_arap_energy *data, const op_body *body, double h, double *gradient)
{
    double e_kinetic = kinetic(data, body, h, gradient);
    double e_elastic = elastic(data, body, gradient);
    double e_constraint = op_energy_constraints(body);
    if (gradient)
        op_energy_constraints_position_gradient(body, gradient);
    return e_kinetic + e_elastic + e_constraint;
}

int op_arap_energy_of(op_ctx *ctx, op_arap_energy **data, const op_body *body, double h, double *energy)
{
    if (!*data) {
        op_arap_energy *made = op_calloc(ctx, 1, sizeof *made);
        if (!made || op_arap_energy_init(ctx, made, body->graph) != OP_OK) {
            free(made);
            return ctx->status;
        }
        *data = made;
    }
    *energy = op_arap_energy_eval(*data, body, h, NULL);
    return OP_OK;
}

void op_arap_energy_release(op_arap_energy **data)
{
    if (*data)
        op_arap_energy_free(*data);
    OP_FREE(*data);
}
