/* The energy of docs/design.md §1 and its gradients, the yardstick for every solver variant.
 *
 * Every residual is formed as a difference of like quantities (R_i − Y_i, R_i − R_j,
 * R_i d̄_ij − d_ij, x_i − y_i) before it is squared or multiplied, never expanded into
 * separate products: a body exactly at rest then gives exactly 0 energy and exactly 0
 * gradients, and near rest there is no cancellation of large terms. */
#include "sim/energy.h"

#include "base/math3.h"

/* tr(M Ā Mᵀ) = ‖M Ē A^½‖²_F for a symmetric moment Ā = Ē A Ēᵀ. */
static double moment_norm2(const double m[9], const double moment[9])
{
    double ma[9];
    m3_mul(ma, m, moment);
    return m3_inner(ma, m);
}

/* u = n/‖n‖ of a direction constraint, or 0 where n = 0 and u is undefined (energy.h).
 * Returns ‖n‖. */
static double skinned_unit_direction(const op_body *body, const op_constraint *c, double u[3])
{
    double n[3];
    op_constraint_skinned_direction(body, c, n);
    double norm = v3_norm(n);
    if (norm > 0.0)
        v3_scale(u, n, 1.0 / norm);
    else
        v3_set(u, 0.0, 0.0, 0.0);
    return norm;
}

static double kinetic_energy(const op_body *body, double h)
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double sum = 0.0;
    for (int i = 0; i < g->particle_count; ++i) {
        double dr[9], dx[3];
        m3_sub(dr, &s->rotation[9 * i], &body->inertial_rotation[9 * i]);
        v3_sub(dx, &s->position[3 * i], &body->inertial_position[3 * i]);
        sum += g->density * moment_norm2(dr, &g->rest_moment[9 * i]) + g->mass[i] * v3_dot(dx, dx);
    }
    return sum / (2.0 * h * h);
}

static double elastic_energy(const op_body *body)
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double sum = 0.0;
    for (int i = 0; i < g->particle_count; ++i) {
        const double *ri = &s->rotation[9 * i];
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            double dr[9], rest[3], now[3], r[3];
            m3_sub(dr, ri, &s->rotation[9 * j]);
            v3_sub(rest, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            v3_sub(now, &s->position[3 * j], &s->position[3 * i]);
            m3_mul_v(r, ri, rest);
            v3_sub(r, r, now);
            sum += moment_norm2(dr, &g->rest_moment[9 * j]) + g->volume[j] * v3_dot(r, r);
        }
    }
    return 0.5 * body->stiffness * sum;
}

double op_energy_constraints(const op_body *body)
{
    double sum = 0.0;
    for (int k = 0; k < body->constraint_count; ++k) {
        const op_constraint *c = &body->constraints[k];
        double e[3];
        if (c->kind == OP_CONSTRAINT_POSITION)
            op_constraint_skinned_point(body, c, e);
        else
            skinned_unit_direction(body, c, e);
        v3_sub(e, e, c->target);
        sum += 0.5 * c->weight * v3_dot(e, e);
    }
    return sum;
}

void op_energy_eval(const op_body *body, double h, op_energy *out)
{
    out->kinetic = kinetic_energy(body, h);
    out->elastic = elastic_energy(body);
    out->constraint = op_energy_constraints(body);
    out->total = out->kinetic + out->elastic + out->constraint;
}

void op_energy_position_gradient(const op_body *body, double h, double *gradient)
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double k = body->stiffness, inv_h2 = 1.0 / (h * h);
    for (int i = 0; i < g->particle_count; ++i) {
        double *gi = &gradient[3 * i];
        double dx[3];
        v3_sub(dx, &s->position[3 * i], &body->inertial_position[3 * i]);
        v3_scale(gi, dx, g->mass[i] * inv_h2);
        /* Particle i enters the (i, j) term weighted v_j with R_i and the (j, i) term weighted
         * v_i with R_j; with d̄ = x̄_j − x̄_i and d = x_j − x_i both residuals are R d̄ − d (Eq. 6). */
        const double *ri = &s->rotation[9 * i];
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            double rest[3], now[3], res_i[3], res_j[3];
            v3_sub(rest, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            v3_sub(now, &s->position[3 * j], &s->position[3 * i]);
            m3_mul_v(res_i, ri, rest);
            v3_sub(res_i, res_i, now);
            m3_mul_v(res_j, &s->rotation[9 * j], rest);
            v3_sub(res_j, res_j, now);
            v3_axpy(gi, k * g->volume[j], res_i);
            v3_axpy(gi, k * g->volume[i], res_j);
        }
    }
    op_energy_constraints_position_gradient(body, gradient);
}

void op_energy_constraints_position_gradient(const op_body *body, double *gradient)
{
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        if (con->kind != OP_CONSTRAINT_POSITION)
            continue;
        double e[3];
        op_constraint_skinned_point(body, con, e);
        v3_sub(e, e, con->target);
        for (int q = 0; q < con->influence_count; ++q)
            v3_axpy(&gradient[3 * con->particle[q]], con->weight * con->influence[q], e);
    }
}

void op_energy_rotation_gradient(const op_body *body, double h, double *gradient)
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double k = body->stiffness, inv_h2 = 1.0 / (h * h);
    for (int i = 0; i < g->particle_count; ++i) {
        double *gi = &gradient[9 * i];
        const double *ri = &s->rotation[9 * i];
        const double *ai = &g->rest_moment[9 * i];
        double dr[9];
        m3_sub(dr, ri, &body->inertial_rotation[9 * i]);
        m3_mul(gi, dr, ai);
        m3_scale(gi, gi, g->density * inv_h2);
        /* R_i enters ‖(R_i − R_j) Ē_j A_j^½‖² of (i, j) and ‖(R_j − R_i) Ē_i A_i^½‖² of (j, i),
         * but only the (i, j) position term. */
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            double moments[9], term[9], rest[3], now[3], res[3];
            m3_sub(dr, ri, &s->rotation[9 * j]);
            m3_add(moments, ai, &g->rest_moment[9 * j]);
            m3_mul(term, dr, moments);
            m3_axpy(gi, k, term);
            v3_sub(rest, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            v3_sub(now, &s->position[3 * j], &s->position[3 * i]);
            m3_mul_v(res, ri, rest);
            v3_sub(res, res, now);
            m3_add_outer(gi, k * g->volume[j], res, rest);
        }
    }
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        double e[3];
        if (con->kind == OP_CONSTRAINT_POSITION) {
            op_constraint_skinned_point(body, con, e);
            v3_sub(e, e, con->target);
            for (int q = 0; q < con->influence_count; ++q) {
                int j = con->particle[q];
                double arm[3];
                v3_sub(arm, con->rest_point, &g->rest_position[3 * j]);
                m3_add_outer(&gradient[9 * j], con->weight * con->influence[q], e, arm);
            }
        } else {
            /* ∂/∂n of w/2 ‖n/‖n‖ − n_c‖² = w (I − u uᵀ)(u − n_c)/‖n‖, and ∂n/∂R_j = w_j (·) n̄ᵀ */
            double u[3];
            double norm = skinned_unit_direction(body, con, u);
            if (norm == 0.0)
                continue;
            v3_sub(e, u, con->target);
            v3_axpy(e, -v3_dot(u, e), u);
            for (int q = 0; q < con->influence_count; ++q)
                m3_add_outer(&gradient[9 * con->particle[q]], con->weight * con->influence[q] / norm, e,
                             con->rest_direction);
        }
    }
}

void op_energy_momentum(const op_body *body, const double centre[3], double linear[3], double angular[3])
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double p[3] = { 0, 0, 0 }, l[3] = { 0, 0, 0 };
    for (int i = 0; i < g->particle_count; ++i) {
        const double *v = &s->velocity[3 * i], *R = &s->rotation[9 * i], *rate = &s->rotation_rate[9 * i];
        double arm[3], turn[3], ra[9], spin[9];
        v3_axpy(p, g->mass[i], v);
        v3_sub(arm, &s->position[3 * i], centre);
        v3_cross(turn, arm, v);
        v3_axpy(l, g->mass[i], turn);
        m3_mul(ra, rate, &g->rest_moment[9 * i]);
        m3_mul_bt(spin, ra, R); /* Ṙ Ā Rᵀ; the term's other half is its transpose */
        double own[3] = { spin[7] - spin[5], spin[2] - spin[6], spin[3] - spin[1] };
        v3_axpy(l, g->density, own);
    }
    v3_copy(linear, p);
    v3_copy(angular, l);
}

double op_energy_motion(const op_body *body)
{
    const op_graph *g = body->graph;
    const op_state *s = &body->state;
    double sum = 0.0;
    for (int i = 0; i < g->particle_count; ++i)
        sum += g->mass[i] * v3_dot(&s->velocity[3 * i], &s->velocity[3 * i]) +
               g->density * moment_norm2(&s->rotation_rate[9 * i], &g->rest_moment[9 * i]);
    return 0.5 * sum;
}
