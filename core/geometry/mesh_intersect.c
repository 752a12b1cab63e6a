/* Self-intersection of a triangle mesh (mesh_intersect.h): a sweep over the triangles' boxes
 * sorted along x, then for each pair whose boxes overlap an exact-sign test of each triangle's
 * edges against the other. The orientation determinants are plain doubles: a crossing decided
 * by rounding is a touching contact, which is not reported anyway. */
#include "geometry/mesh_intersect.h"

#include <stdlib.h>
#include <string.h>

typedef struct tri_box {
    double lo[3], hi[3];
    int triangle;
} tri_box;

static int by_low_x(const void *a, const void *b)
{
    const tri_box *p = a, *q = b;
    return p->lo[0] < q->lo[0] ? -1 : p->lo[0] > q->lo[0] ? 1 : p->triangle - q->triangle;
}

/* The sign of det[b - a, c - a, d - a]: which side of plane abc d lies on. */
static int orient(const double *a, const double *b, const double *c, const double *d)
{
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; ++k) {
        u[k] = b[k] - a[k];
        v[k] = c[k] - a[k];
        w[k] = d[k] - a[k];
    }
    double det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                 u[2] * (v[0] * w[1] - v[1] * w[0]);
    return (det > 0) - (det < 0);
}

/* Segment pq passes through the interior of triangle abc (strictly). */
static int segment_crosses(const double *p, const double *q, const double *a, const double *b, const double *c)
{
    int sp = orient(a, b, c, p), sq = orient(a, b, c, q);
    if (sp == 0 || sq == 0 || sp == sq)
        return 0;
    int s1 = orient(p, q, a, b), s2 = orient(p, q, b, c), s3 = orient(p, q, c, a);
    return s1 != 0 && s1 == s2 && s2 == s3;
}

static int triangles_cross(const op_mesh *mesh, int s, int t)
{
    const double *a[3], *b[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = &mesh->vertices[3 * (size_t)mesh->faces[3 * (size_t)s + k]];
        b[k] = &mesh->vertices[3 * (size_t)mesh->faces[3 * (size_t)t + k]];
    }
    for (int k = 0; k < 3; ++k)
        if (segment_crosses(a[k], a[(k + 1) % 3], b[0], b[1], b[2]) ||
            segment_crosses(b[k], b[(k + 1) % 3], a[0], a[1], a[2]))
            return 1;
    return 0;
}

static int share_a_position(const op_mesh *mesh, int s, int t)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (memcmp(&mesh->vertices[3 * (size_t)mesh->faces[3 * (size_t)s + i]],
                       &mesh->vertices[3 * (size_t)mesh->faces[3 * (size_t)t + j]], 3 * sizeof(double)) == 0)
                return 1;
    return 0;
}

int op_mesh_self_intersection(const op_mesh *mesh, int pair[2])
{
    int faces = mesh->face_count;
    tri_box *boxes = malloc(((size_t)faces + 1) * sizeof *boxes);
    if (!boxes)
        return -1;
    for (int f = 0; f < faces; ++f) {
        tri_box *box = &boxes[f];
        box->triangle = f;
        for (int k = 0; k < 3; ++k) {
            const double *v = &mesh->vertices[3 * (size_t)mesh->faces[3 * (size_t)f + k]];
            for (int d = 0; d < 3; ++d) {
                box->lo[d] = k == 0 || v[d] < box->lo[d] ? v[d] : box->lo[d];
                box->hi[d] = k == 0 || v[d] > box->hi[d] ? v[d] : box->hi[d];
            }
        }
    }
    qsort(boxes, (size_t)faces, sizeof *boxes, by_low_x);
    int found = 0;
    for (int i = 0; i < faces; ++i)
        for (int j = i + 1; j < faces && boxes[j].lo[0] <= boxes[i].hi[0]; ++j) {
            const tri_box *p = &boxes[i], *q = &boxes[j];
            if (p->lo[1] > q->hi[1] || q->lo[1] > p->hi[1] || p->lo[2] > q->hi[2] || q->lo[2] > p->hi[2])
                continue;
            int s = p->triangle < q->triangle ? p->triangle : q->triangle;
            int t = p->triangle < q->triangle ? q->triangle : p->triangle;
            if (found && (s > pair[0] || (s == pair[0] && t >= pair[1])))
                continue;
            if (share_a_position(mesh, s, t) || !triangles_cross(mesh, s, t))
                continue;
            pair[0] = s;
            pair[1] = t;
            found = 1;
        }
    free(boxes);
    return found;
}
