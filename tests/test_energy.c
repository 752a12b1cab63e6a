/* Tests of core/sim/energy.c: both gradients against central finite differences on a solid torus
 * and a rod (every term together and each term alone), exact zeros at rest, the invariances of
 * E^e, the rotation gradient against the local step's C_i, and every term on a two-particle
 * graph against values computed independently: from explicit Ē A^½ and by quadrature of the
 * integrals of Eq. 3 and Eq. 9 over the ellipsoids. Each test prints the worst error it saw. */
#include <stdlib.h>

#include "opsim/body.h"
#include "geometry/build.h"
#include "sim/energy.h"
#include "base/math3.h"
#include "base/rng.h"
#include "sim/script.h"
#include "geometry/shapes.h"
#include "test_models.h"
#include "test_util.h"

#define STIFFNESS 1e4
#define H (1.0 / 30.0)
/* h large enough that E^k is ~1e-19 of itself: isolates the other terms */
#define H_NO_INERTIA 1e8
/* Finite differences: central, step FD_STEP times the coordinate's scale. */
#define FD_STEP 1e-6
#define FD_TOL 1e-6

static const double IDENTITY[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
static const double ORIGIN[3] = { 0, 0, 0 };

static double gaussian(op_rng *rng)
{
    double u = 1.0 - op_rng_uniform(rng);
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * op_rng_uniform(rng));
}

static void gaussian_vector(op_rng *rng, double scale, double v[3])
{
    for (int d = 0; d < 3; ++d)
        v[d] = scale * gaussian(rng);
}

/* exp of a Gaussian rotation vector of standard deviation `scale` per component */
static void random_rotation(op_rng *rng, double scale, double r[9])
{
    double w[3];
    gaussian_vector(rng, scale, w);
    double angle = v3_norm(w);
    v3_scale(w, w, 1.0 / angle);
    op_axis_angle_matrix(w, angle, r);
}

static void random_unit(op_rng *rng, double u[3])
{
    gaussian_vector(rng, 1.0, u);
    v3_scale(u, u, 1.0 / v3_norm(u));
}

/* ---- models ------------------------------------------------------------------------------ */


/* Radius of the model's rest centres about their mean: the length scale of a body. */
static double model_scale(const op_model *model)
{
    const op_graph *g = &model->graph;
    double mean[3] = { 0, 0, 0 }, r2 = 0.0;
    for (int i = 0; i < g->particle_count; ++i)
        v3_axpy(mean, 1.0 / g->particle_count, &g->rest_position[3 * i]);
    for (int i = 0; i < g->particle_count; ++i)
        r2 = fmax(r2, v3_dist2(&g->rest_position[3 * i], mean));
    return sqrt(r2);
}

/* A body placed by a random rigid motion, with a random state about it: every rotation the
 * placement turned by exp of a rotation vector of scale `angle`, centres moved by 5% of the
 * size, inertial targets Y = R' + h Ṙ (R' near R, Ṙ random: not a rotation) and y near x, two
 * position and two direction constraints with random targets. */
static void random_body(const op_model *model, uint64_t seed, double angle, op_body *body)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_rng rng = op_rng_seeded(seed);
    double scale = model_scale(model), p[9], t[3];
    random_rotation(&rng, 1.0, p);
    gaussian_vector(&rng, scale, t);
    assert_int_equal(op_body_init(&ctx, body, "random", model, STIFFNESS, p, t), OP_OK);
    int n = model->graph.particle_count;
    for (int i = 0; i < n; ++i) {
        double turn[9], rate[9], dx[3];
        random_rotation(&rng, angle, turn);
        m3_mul(&body->state.rotation[9 * i], turn, p);
        gaussian_vector(&rng, 0.05 * scale, dx);
        v3_add(&body->state.position[3 * i], &body->state.position[3 * i], dx);
        random_rotation(&rng, 0.1, turn);
        m3_mul(&body->inertial_rotation[9 * i], turn, &body->state.rotation[9 * i]);
        for (int k = 0; k < 9; ++k)
            rate[k] = 2.0 * gaussian(&rng);
        m3_axpy(&body->inertial_rotation[9 * i], H, rate);
        gaussian_vector(&rng, 0.05 * scale, dx);
        v3_add(&body->inertial_position[3 * i], &body->state.position[3 * i], dx);
    }
    for (int c = 0; c < 2; ++c) {
        int vertex = op_rng_below(&rng, model->mesh.vertex_count);
        assert_int_equal(op_body_add_constraint(&ctx, body, OP_CONSTRAINT_POSITION, vertex, NULL, 1e3, -1), OP_OK);
        double dx[3];
        gaussian_vector(&rng, 0.1 * scale, dx);
        v3_add(body->constraints[body->constraint_count - 1].target, body->constraints[body->constraint_count - 1].anchor,
               dx);
    }
    for (int c = 0; c < 2; ++c) {
        int vertex = op_rng_below(&rng, model->mesh.vertex_count);
        double direction[3];
        gaussian_vector(&rng, 1.0, direction);
        assert_int_equal(op_body_add_constraint(&ctx, body, OP_CONSTRAINT_DIRECTION, vertex, direction, 20.0, -1),
                         OP_OK);
        random_unit(&rng, body->constraints[body->constraint_count - 1].target);
    }
}

/* ---- finite differences ------------------------------------------------------------------ */

static double total_energy(const op_body *body, double h)
{
    op_energy e;
    op_energy_eval(body, h, &e);
    return e.total;
}

static double vector_norm(const double *v, int count)
{
    double s = 0.0;
    for (int k = 0; k < count; ++k)
        s += v[k] * v[k];
    return sqrt(s);
}

/* max over the coordinates of |central difference − analytic| / ‖analytic gradient‖ */
static double fd_error(op_body *body, double h, double *values, int count, const double *gradient, double step)
{
    double norm = vector_norm(gradient, count), worst = 0.0;
    assert_true(norm > 0.0);
    for (int k = 0; k < count; ++k) {
        double saved = values[k];
        double up = saved + step, down = saved - step;
        values[k] = up;
        double e_up = total_energy(body, h);
        values[k] = down;
        double e_down = total_energy(body, h);
        values[k] = saved;
        worst = fmax(worst, fabs((e_up - e_down) / (up - down) - gradient[k]) / norm);
    }
    return worst;
}

typedef struct fd_errors {
    double position, rotation;
} fd_errors;

static fd_errors check_gradients(op_body *body, double h, double scale, const char *label)
{
    int n = body->state.particle_count;
    double *gx = calloc(3 * (size_t)n, sizeof(double)), *gr = calloc(9 * (size_t)n, sizeof(double));
    assert_non_null(gx);
    assert_non_null(gr);
    op_energy_position_gradient(body, h, gx);
    op_energy_rotation_gradient(body, h, gr);
    fd_errors e = { fd_error(body, h, body->state.position, 3 * n, gx, FD_STEP * scale),
                    fd_error(body, h, body->state.rotation, 9 * n, gr, FD_STEP) };
    print_message("  %-40s dE/dx %.2e  dE/dR %.2e  (|dE/dx| %.3g, |dE/dR| %.3g)\n", label, e.position, e.rotation,
                  vector_norm(gx, 3 * n), vector_norm(gr, 9 * n));
    free(gx);
    free(gr);
    if (!(e.position <= FD_TOL) || !(e.rotation <= FD_TOL))
        fail_msg("%s: finite differences disagree (%.3g, %.3g > %g)", label, e.position, e.rotation, FD_TOL);
    return e;
}

/* All terms together, then each alone: E^e (k only, h huge, no constraints), E^k (k = 0), E^c. */
static void check_all_terms(const op_model *model, uint64_t seed, double angle, const char *label)
{
    op_body body;
    random_body(model, seed, angle, &body);
    double scale = model_scale(model);
    int constraints = body.constraint_count;
    char name[128];
    snprintf(name, sizeof name, "%s, all terms", label);
    check_gradients(&body, H, scale, name);
    body.constraint_count = 0;
    snprintf(name, sizeof name, "%s, E^e alone", label);
    check_gradients(&body, H_NO_INERTIA, scale, name);
    body.stiffness = 0.0;
    snprintf(name, sizeof name, "%s, E^k alone", label);
    check_gradients(&body, H, scale, name);
    body.constraint_count = constraints;
    snprintf(name, sizeof name, "%s, E^c alone", label);
    check_gradients(&body, H_NO_INERTIA, scale, name);
    op_body_free(&body);
}

static void test_gradients_torus(void **state)
{
    test_models *m = *state;
    check_all_terms(&m->torus, 11, 0.2, "torus, small rotations");
    check_all_terms(&m->torus, 12, 2.0, "torus, large rotations");
}

static void test_gradients_bar(void **state)
{
    test_models *m = *state;
    check_all_terms(&m->bar, 21, 0.2, "bar, small rotations");
    check_all_terms(&m->bar, 22, 2.0, "bar, large rotations");
}

/* ---- exact properties -------------------------------------------------------------------- */

static void check_rest_exact(const op_model *model)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_body body;
    assert_int_equal(op_body_init(&ctx, &body, "rest", model, STIFFNESS, IDENTITY, ORIGIN), OP_OK);
    int n = body.state.particle_count;
    for (int k = 0; k < 3 * n; ++k)
        assert_true(body.inertial_position[k] == model->graph.rest_position[k]);
    for (int k = 0; k < 9 * n; ++k)
        assert_true(body.inertial_rotation[k] == IDENTITY[k % 9]);
    op_energy e;
    op_energy_eval(&body, H, &e);
    assert_true(e.kinetic == 0.0 && e.elastic == 0.0 && e.constraint == 0.0 && e.total == 0.0);
    double *gx = calloc(3 * (size_t)n, sizeof(double)), *gr = calloc(9 * (size_t)n, sizeof(double));
    assert_non_null(gx);
    assert_non_null(gr);
    for (int k = 0; k < 3 * n; ++k)
        gx[k] = NAN;
    for (int k = 0; k < 9 * n; ++k)
        gr[k] = NAN;
    op_energy_position_gradient(&body, H, gx);
    op_energy_rotation_gradient(&body, H, gr);
    for (int k = 0; k < 3 * n; ++k)
        if (gx[k] != 0.0)
            fail_msg("%s at rest: dE/dx[%d] = %.17g", model->name, k, gx[k]);
    for (int k = 0; k < 9 * n; ++k)
        if (gr[k] != 0.0)
            fail_msg("%s at rest: dE/dR[%d] = %.17g", model->name, k, gr[k]);
    assert_true(op_energy_motion(&body) == 0.0);
    free(gx);
    free(gr);
    op_body_free(&body);
}

static void test_rest_is_exactly_zero(void **state)
{
    test_models *m = *state;
    check_rest_exact(&m->torus);
    check_rest_exact(&m->bar);
}

/* E^e(Q x + t, Q R) = E^e(x, R); the elastic forces sum to zero (translation invariance). */
static void test_elastic_rigid_invariance(void **state)
{
    test_models *m = *state;
    const op_model *list[2] = { &m->torus, &m->bar };
    double worst = 0.0, worst_sum = 0.0;
    for (int b = 0; b < 2; ++b) {
        op_body body;
        random_body(list[b], 31 + b, 2.0, &body);
        body.constraint_count = 0;
        op_energy before, after;
        op_energy_eval(&body, H, &before);
        op_rng rng = op_rng_seeded(41 + b);
        double q[9], t[3];
        random_rotation(&rng, 2.0, q);
        gaussian_vector(&rng, 10.0, t);
        int n = body.state.particle_count;
        for (int i = 0; i < n; ++i) {
            double *x = &body.state.position[3 * i];
            m3_mul_v(x, q, x);
            v3_add(x, x, t);
            m3_mul(&body.state.rotation[9 * i], q, &body.state.rotation[9 * i]);
        }
        op_energy_eval(&body, H, &after);
        double rel = fabs(after.elastic - before.elastic) / before.elastic;
        worst = fmax(worst, rel);
        assert_true(before.elastic > 0.0);
        assert_le(rel, 1e-10);

        double *g = calloc(3 * (size_t)n, sizeof(double)), sum[3] = { 0, 0, 0 };
        assert_non_null(g);
        op_energy_position_gradient(&body, H_NO_INERTIA, g);
        for (int i = 0; i < n; ++i)
            v3_add(sum, sum, &g[3 * i]);
        double rel_sum = v3_norm(sum) / vector_norm(g, 3 * n);
        worst_sum = fmax(worst_sum, rel_sum);
        assert_le(rel_sum, 1e-12);
        free(g);
        op_body_free(&body);
    }
    print_message("  E^e change under a rigid motion %.2e (relative); |sum of elastic forces|/|forces| %.2e\n",
                  worst, worst_sum);
}

static void test_kinetic_zero_at_targets(void **state)
{
    test_models *m = *state;
    op_body body;
    random_body(&m->torus, 51, 2.0, &body);
    int n = body.state.particle_count;
    memcpy(body.inertial_position, body.state.position, 3 * (size_t)n * sizeof(double));
    memcpy(body.inertial_rotation, body.state.rotation, 9 * (size_t)n * sizeof(double));
    op_energy e;
    op_energy_eval(&body, H, &e);
    assert_true(e.kinetic == 0.0);
    assert_true(e.elastic > 0.0 && e.constraint > 0.0);
    assert_close(e.total, e.kinetic + e.elastic + e.constraint, 1e-15);
    op_body_free(&body);
}

/* With R_i a rotation and no direction constraints, ∂E/∂R_i = R_i S_i − C_i where C_i is the
 * local step's matrix (docs/design.md §1, Eq. 5, 11 and C^p of Sec. 3.4) and S_i is symmetric. */
static void test_rotation_gradient_matches_local_step(void **state)
{
    test_models *m = *state;
    const op_model *list[2] = { &m->torus, &m->bar };
    double worst = 0.0;
    for (int b = 0; b < 2; ++b) {
        op_body body;
        random_body(list[b], 61 + b, 1.0, &body);
        body.constraint_count = 2; /* the two position constraints */
        const op_graph *g = body.graph;
        const op_state *s = &body.state;
        int n = s->particle_count;
        double *gr = calloc(9 * (size_t)n, sizeof(double)), *c = calloc(9 * (size_t)n, sizeof(double));
        assert_non_null(gr);
        assert_non_null(c);
        op_energy_rotation_gradient(&body, H, gr);
        for (int i = 0; i < n; ++i) {
            double *ci = &c[9 * i], term[9];
            m3_mul(ci, &body.inertial_rotation[9 * i], &g->rest_moment[9 * i]);
            m3_scale(ci, ci, g->density / (H * H));
            for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
                int j = g->adjacency[e];
                double moments[9], now[3], rest[3];
                m3_add(moments, &g->rest_moment[9 * j], &g->rest_moment[9 * i]);
                m3_mul(term, &s->rotation[9 * j], moments);
                m3_axpy(ci, body.stiffness, term);
                v3_sub(now, &s->position[3 * j], &s->position[3 * i]);
                v3_sub(rest, &g->rest_position[3 * j], &g->rest_position[3 * i]);
                m3_add_outer(ci, body.stiffness * g->volume[j], now, rest);
            }
        }
        for (int k = 0; k < body.constraint_count; ++k) {
            const op_constraint *con = &body.constraints[k];
            for (int q = 0; q < con->influence_count; ++q) {
                int i = con->particle[q];
                double ubar[3], u[3];
                v3_sub(ubar, con->rest_point, &g->rest_position[3 * i]);
                v3_scale(ubar, ubar, con->influence[q]);
                v3_copy(u, con->target);
                for (int p = 0; p < con->influence_count; ++p) {
                    v3_axpy(u, -con->influence[p], &s->position[3 * con->particle[p]]);
                    if (p == q)
                        continue;
                    double arm[3];
                    v3_sub(arm, con->rest_point, &g->rest_position[3 * con->particle[p]]);
                    m3_mul_v(arm, &s->rotation[9 * con->particle[p]], arm);
                    v3_axpy(u, -con->influence[p], arm);
                }
                m3_add_outer(&c[9 * i], con->weight, u, ubar);
            }
        }
        for (int i = 0; i < n; ++i) {
            double sum[9], si[9];
            m3_add(sum, &gr[9 * i], &c[9 * i]);
            m3_mul_at(si, &s->rotation[9 * i], sum);
            double asym = 0.0;
            for (int r = 0; r < 3; ++r)
                for (int q = 0; q < 3; ++q)
                    asym = fmax(asym, fabs(si[3 * r + q] - si[3 * q + r]));
            double rel = asym / sqrt(m3_frobenius2(&c[9 * i]));
            worst = fmax(worst, rel);
            if (!(rel <= 1e-12))
                fail_msg("%s particle %d: R^T(dE/dR + C) is not symmetric (%.3g)", list[b]->name, i, rel);
        }
        free(gr);
        free(c);
        op_body_free(&body);
    }
    print_message("  worst asymmetry of R^T (dE/dR + C) relative to |C|: %.2e\n", worst);
}

/* ---- a two-particle graph, checked by hand ----------------------------------------------- */

typedef struct pair_fixture {
    op_model model;
    op_body body;
    double density, h;
} pair_fixture;

/* Two ellipsoids joined by one edge, two visual vertices each skinned to both particles;
 * a random placement and state, a position constraint at vertex 0, a direction at vertex 1. */
static void pair_build(pair_fixture *f, uint64_t seed)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_rng rng = op_rng_seeded(seed);
    memset(f, 0, sizeof *f);
    f->density = 800.0;
    f->h = 0.01;
    op_graph *g = &f->model.graph;
    assert_int_equal(op_graph_alloc(&ctx, g, 2, 1), OP_OK);
    const double centres[6] = { 0.0, 0.0, 0.0, 0.3, 0.1, -0.05 };
    const double radii[6] = { 0.2, 0.1, 0.05, 0.15, 0.12, 0.04 };
    memcpy(g->rest_position, centres, sizeof centres);
    memcpy(g->radii, radii, sizeof radii);
    random_rotation(&rng, 1.0, &g->rest_axes[0]);
    random_rotation(&rng, 1.0, &g->rest_axes[9]);
    op_graph_derive(g, f->density);
    assert_int_equal(op_graph_set_edges(&ctx, g, (const int[2]){ 0, 1 }, 1), OP_OK);
    assert_int_equal(op_graph_check(&ctx, g, "pair"), OP_OK);

    assert_int_equal(op_mesh_alloc(&ctx, &f->model.mesh, 2, 0), OP_OK);
    const double vertices[6] = { 0.1, 0.05, 0.02, 0.25, -0.03, 0.04 };
    memcpy(f->model.mesh.vertices, vertices, sizeof vertices);
    assert_int_equal(op_skin_alloc(&ctx, &f->model.skin, 2, 2), OP_OK);
    const int index[4] = { 0, 1, 1, 0 };
    const double weight[4] = { 0.75, 0.25, 0.625, 0.375 };
    memcpy(f->model.skin.index, index, sizeof index);
    memcpy(f->model.skin.weight, weight, sizeof weight);

    double p[9], t[3];
    random_rotation(&rng, 1.0, p);
    gaussian_vector(&rng, 1.0, t);
    assert_int_equal(op_body_init(&ctx, &f->body, "pair", &f->model, 1e5, p, t), OP_OK);
    op_state *s = &f->body.state;
    for (int i = 0; i < 2; ++i) {
        random_rotation(&rng, 1.5, &s->rotation[9 * i]);
        gaussian_vector(&rng, 0.2, &s->position[3 * i]);
        for (int k = 0; k < 9; ++k) {
            f->body.inertial_rotation[9 * i + k] = gaussian(&rng);
            s->rotation_rate[9 * i + k] = gaussian(&rng);
        }
        gaussian_vector(&rng, 0.2, &f->body.inertial_position[3 * i]);
        gaussian_vector(&rng, 1.0, &s->velocity[3 * i]);
    }
    assert_int_equal(op_body_add_constraint(&ctx, &f->body, OP_CONSTRAINT_POSITION, 0, NULL, 300.0, -1), OP_OK);
    gaussian_vector(&rng, 0.3, f->body.constraints[0].target);
    const double direction[3] = { 1.0, 2.0, -0.5 };
    assert_int_equal(op_body_add_constraint(&ctx, &f->body, OP_CONSTRAINT_DIRECTION, 1, direction, 7.0, -1), OP_OK);
    random_unit(&rng, f->body.constraints[1].target);
}

static void pair_free(pair_fixture *f)
{
    op_body_free(&f->body);
    op_graph_free(&f->model.graph);
    op_mesh_free(&f->model.mesh);
    op_skin_free(&f->model.skin);
}

/* Ē_i A_i^½ from the radii alone: A^½ = diag(a, b, c) √(v/5), v = 4/3 π a b c. */
static void axes_root_moment(const pair_fixture *f, int i, double out[9])
{
    const double *r = &f->model.graph.radii[3 * i];
    double v = 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2];
    double root[9] = { r[0] * sqrt(v / 5.0), 0, 0, 0, r[1] * sqrt(v / 5.0), 0, 0, 0, r[2] * sqrt(v / 5.0) };
    m3_mul(out, &f->model.graph.rest_axes[9 * i], root);
}

static double frobenius2_times(const double m[9], const double b[9])
{
    double p[9];
    m3_mul(p, m, b);
    return m3_frobenius2(p);
}

/* Gauss–Legendre on [−1, 1] with three nodes: exact to degree 5. */
static const double GL_NODE[3] = { -0.77459666924148337704, 0.0, 0.77459666924148337704 };
static const double GL_WEIGHT[3] = { 5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0 };

/* ∫ over the unit ball of a quadratic f(u) du: Gauss–Legendre in r (with r²) and in cos θ,
 * six equally spaced φ; exact for polynomials of degree <= 2. */
typedef struct ball_integrand {
    const double *origin;  /* f(u) = ‖origin + map u‖² */
    const double *map;
} ball_integrand;

static double ball_integral(const ball_integrand *f)
{
    double sum = 0.0;
    for (int a = 0; a < 3; ++a) {
        double r = 0.5 * (GL_NODE[a] + 1.0), wr = 0.5 * GL_WEIGHT[a] * r * r;
        for (int b = 0; b < 3; ++b) {
            double mu = GL_NODE[b], sine = sqrt(1.0 - mu * mu);
            for (int c = 0; c < 6; ++c) {
                double phi = 2.0 * M_PI * c / 6.0;
                double u[3] = { r * sine * cos(phi), r * sine * sin(phi), r * mu }, value[3];
                m3_mul_v(value, f->map, u);
                v3_add(value, value, f->origin);
                sum += wr * GL_WEIGHT[b] * (2.0 * M_PI / 6.0) * v3_dot(value, value);
            }
        }
    }
    return sum;
}

static void test_pair_terms_by_hand(void **state)
{
    (void)state;
    pair_fixture f;
    pair_build(&f, 71);
    const op_body *b = &f.body;
    const op_graph *g = &f.model.graph;
    const op_state *s = &b->state;
    double h2 = f.h * f.h, k = b->stiffness;
    double kinetic = 0.0, kinetic_quad = 0.0, elastic = 0.0, elastic_quad = 0.0;
    for (int i = 0; i < 2; ++i) {
        const double *r = &g->radii[3 * i];
        double v = 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2], ea[9], dr[9], dx[3];
        axes_root_moment(&f, i, ea);
        m3_sub(dr, &s->rotation[9 * i], &b->inertial_rotation[9 * i]);
        v3_sub(dx, &s->position[3 * i], &b->inertial_position[3 * i]);
        kinetic += f.density / (2.0 * h2) * frobenius2_times(dr, ea) + f.density * v / (2.0 * h2) * v3_dot(dx, dx);
        /* Eq. 9: material point u of the unit ball sits at x_i + R_i Ē_i D u, its target at
         * y_i + Y_i Ē_i D u; dx = a b c du. */
        double axes_d[9], map[9];
        const double d[9] = { r[0], 0, 0, 0, r[1], 0, 0, 0, r[2] };
        m3_mul(axes_d, &g->rest_axes[9 * i], d);
        m3_mul(map, dr, axes_d);
        ball_integrand fi = { dx, map };
        kinetic_quad += f.density / (2.0 * h2) * r[0] * r[1] * r[2] * ball_integral(&fi);
    }
    for (int i = 0; i < 2; ++i) {
        int j = 1 - i;
        const double *ri = &s->rotation[9 * i], *rj = &s->rotation[9 * j], *radj = &g->radii[3 * j];
        double vj = 4.0 / 3.0 * M_PI * radj[0] * radj[1] * radj[2], ea[9], dr[9], rest[3], now[3], res[3];
        axes_root_moment(&f, j, ea);
        m3_sub(dr, ri, rj);
        v3_sub(rest, &g->rest_position[3 * j], &g->rest_position[3 * i]);
        v3_sub(now, &s->position[3 * j], &s->position[3 * i]);
        m3_mul_v(res, ri, rest);
        v3_sub(res, res, now);
        elastic += 0.5 * k * (frobenius2_times(dr, ea) + vj * v3_dot(res, res));
        /* Eq. 3 over ellipsoid j: x̄ = x̄_j + Ē_j D u, x = x_j + R_j Ē_j D u, so the integrand is
         * ‖R_i(x̄ − x̄_i) − (x − x_i)‖² = ‖res + (R_i − R_j) Ē_j D u‖². */
        double axes_d[9], map[9];
        const double d[9] = { radj[0], 0, 0, 0, radj[1], 0, 0, 0, radj[2] };
        m3_mul(axes_d, &g->rest_axes[9 * j], d);
        m3_mul(map, dr, axes_d);
        ball_integrand fi = { res, map };
        elastic_quad += 0.5 * k * radj[0] * radj[1] * radj[2] * ball_integral(&fi);
    }
    /* Eq. 13 and 15 written out for the two vertices */
    const op_constraint *cp = &b->constraints[0], *cd = &b->constraints[1];
    double vpos[3] = { 0, 0, 0 }, n[3] = { 0, 0, 0 };
    const double *vbar = f.model.mesh.vertices;
    for (int q = 0; q < 2; ++q) {
        int j = f.model.skin.index[q];
        double arm[3];
        v3_sub(arm, &vbar[0], &g->rest_position[3 * j]);
        m3_mul_v(arm, &s->rotation[9 * j], arm);
        v3_add(arm, arm, &s->position[3 * j]);
        v3_axpy(vpos, f.model.skin.weight[q], arm);
        int jd = f.model.skin.index[2 + q];
        double nbar[3] = { 1.0 / sqrt(5.25), 2.0 / sqrt(5.25), -0.5 / sqrt(5.25) }, turned[3];
        m3_mul_v(turned, &s->rotation[9 * jd], nbar);
        v3_axpy(n, f.model.skin.weight[2 + q], turned);
    }
    v3_sub(vpos, vpos, cp->target);
    v3_scale(n, n, 1.0 / v3_norm(n));
    v3_sub(n, n, cd->target);
    double constraint = 0.5 * 300.0 * v3_dot(vpos, vpos) + 0.5 * 7.0 * v3_dot(n, n);

    op_energy e;
    op_energy_eval(b, f.h, &e);
    assert_close(e.kinetic, kinetic, 1e-13);
    assert_close(e.kinetic, kinetic_quad, 1e-12);
    assert_close(e.elastic, elastic, 1e-13);
    assert_close(e.elastic, elastic_quad, 1e-12);
    assert_close(e.constraint, constraint, 1e-13);
    assert_close(e.total, kinetic + elastic + constraint, 1e-13);

    double motion = 0.0;
    for (int i = 0; i < 2; ++i) {
        const double *r = &g->radii[3 * i];
        double v = 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2], ea[9];
        axes_root_moment(&f, i, ea);
        motion += 0.5 * f.density * v * v3_dot(&s->velocity[3 * i], &s->velocity[3 * i]) +
                  0.5 * f.density * frobenius2_times(&s->rotation_rate[9 * i], ea);
    }
    assert_close(op_energy_motion(b), motion, 1e-13);
    print_message("  kinetic %.10g (quadrature %.2e), elastic %.10g (quadrature %.2e), constraint %.6g, motion %.6g\n",
                  e.kinetic, fabs(e.kinetic - kinetic_quad) / kinetic_quad, e.elastic,
                  fabs(e.elastic - elastic_quad) / elastic_quad, e.constraint, motion);
    assert_true(e.kinetic > 1.0 && e.elastic > 1.0 && e.constraint > 1.0);
    check_gradients(&f.body, f.h, 0.3, "two particles, all terms");
    pair_free(&f);
}

/* Opposed influences cancel the skinned direction: the term is w/2 ‖n_c‖², gradient 0. */
static void test_direction_degenerate(void **state)
{
    (void)state;
    pair_fixture f;
    pair_build(&f, 81);
    op_body *b = &f.body;
    f.model.skin.weight[2] = f.model.skin.weight[3] = 0.5;
    b->constraint_count = 0;
    op_ctx ctx;
    op_ctx_init(&ctx);
    const double x_axis[3] = { 1, 0, 0 }, turn[9] = { -1, 0, 0, 0, -1, 0, 0, 0, 1 };
    assert_int_equal(op_body_add_constraint(&ctx, b, OP_CONSTRAINT_DIRECTION, 1, x_axis, 7.0, -1), OP_OK);
    const double target[3] = { 0.6, 0.0, 0.8 };
    v3_copy(b->constraints[0].target, target);
    m3_identity(&b->state.rotation[0]);
    m3_copy(&b->state.rotation[9], turn);
    double n[3];
    op_constraint_skinned_direction(b, &b->constraints[0], n);
    assert_true(n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0);
    op_energy e;
    op_energy_eval(b, f.h, &e);
    assert_close(e.constraint, 0.5 * 7.0 * v3_dot(target, target), 1e-15);
    double grad[18], plain[18];
    op_energy_rotation_gradient(b, f.h, grad);
    b->constraint_count = 0;
    op_energy_rotation_gradient(b, f.h, plain);
    assert_memory_equal(grad, plain, sizeof grad);
    pair_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradients_torus),
        cmocka_unit_test(test_gradients_bar),
        cmocka_unit_test(test_rest_is_exactly_zero),
        cmocka_unit_test(test_elastic_rigid_invariance),
        cmocka_unit_test(test_kinetic_zero_at_targets),
        cmocka_unit_test(test_rotation_gradient_matches_local_step),
        cmocka_unit_test(test_pair_terms_by_hand),
        cmocka_unit_test(test_direction_degenerate),
    };
    return cmocka_run_group_tests(tests, test_models_setup, test_models_teardown);
}
