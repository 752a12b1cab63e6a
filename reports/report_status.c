/* The status and bound columns of a result table, and how their cells read (report_status.h). */
#include <stdio.h>
#include <string.h>

#include "report_status.h"

static int starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* The tolerance of own_iterations_TOL… or own_ms_TOL… ("1e-4"), NULL for another column. */
static const char *own_tolerance(const char *column, size_t *length)
{
    static const char *const prefix[] = { "own_iterations_", "own_ms_" };
    for (size_t p = 0; p < sizeof prefix / sizeof prefix[0]; ++p)
        if (starts_with(column, prefix[p]) && column[strlen(prefix[p])] >= '0' && column[strlen(prefix[p])] <= '9') {
            const char *tolerance = column + strlen(prefix[p]);
            *length = strcspn(tolerance, "_");
            return tolerance;
        }
    return NULL;
}

int report_status_name(const char *column, char *name, size_t size)
{
    size_t length;
    const char *tolerance = own_tolerance(column, &length);
    if (tolerance) {
        snprintf(name, size, "own_status_%.*s", (int)length, tolerance);
        return 1;
    }
    if (starts_with(column, "ms_per_frame")) {
        snprintf(name, size, "timing_status");
        return 1;
    }
    int digit_after_ms = starts_with(column, "ms_") && column[3] >= '0' && column[3] <= '9';
    if (starts_with(column, "iterations_") || digit_after_ms || strcmp(column, "r_final") == 0 ||
        strcmp(column, "r_at_ni") == 0 || strcmp(column, "own_last_step") == 0) {
        snprintf(name, size, "convergence_status");
        return 1;
    }
    snprintf(name, size, "%s_status", column);
    return 0;
}

int report_status_bounded(const char *column)
{
    return strcmp(column, "max_h_s") == 0 || strcmp(column, "max_k") == 0;
}

static int index_of(const char *const *names, int count, const char *name)
{
    for (int c = 0; c < count; ++c)
        if (strcmp(names[c], name) == 0)
            return c;
    return -1;
}

void report_status_find(const char *const *names, int count, int c, int *status, int *bound)
{
    char name[300];
    snprintf(name, sizeof name, "%s_status", names[c]);
    *status = index_of(names, count, name);
    if (*status < 0) {
        report_status_name(names[c], name, sizeof name);
        *status = index_of(names, count, name);
    }
    snprintf(name, sizeof name, "%s_bound", names[c]);
    *bound = index_of(names, count, name);
    if (*status == c)
        *status = -1;
}

int report_status_is_companion(const char *const *names, int count, int c)
{
    for (int other = 0; other < count; ++other) {
        int status, bound;
        if (other == c)
            continue;
        report_status_find(names, count, other, &status, &bound);
        if (status == c || bound == c)
            return 1;
    }
    return 0;
}

const char *report_status_bound_sign(const char *bound)
{
    if (bound && strcmp(bound, "ge") == 0)
        return "≥";
    if (bound && strcmp(bound, "le") == 0)
        return "≤";
    return NULL;
}

void report_status_display(const char *cell, const char *status, const char *bound, char *text, size_t size)
{
    const char *sign = report_status_bound_sign(bound);
    if (*cell)
        snprintf(text, size, "%s%s", sign ? sign : "", cell);
    else if (status && *status && strcmp(status, "ok") != 0)
        snprintf(text, size, "%s", status);
    else
        snprintf(text, size, "–");
}
