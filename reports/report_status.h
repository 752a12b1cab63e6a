/* The status and bound columns of a result table (docs/results.md, *Status and bounds*): a
 * number column holds numbers only, so a cell left empty says why in a text column, its
 * status, and a number that is only a bound says so in another, its bound. This file owns the
 * rules that pair a number column with those two, and how such a cell reads to a person (the
 * report's markdown, the LaTeX tables).
 *
 * The status of column NAME is the column NAME_status where the table has one (the derived
 * tables: bar_status beside bar, recovery_s_status beside recovery_s); in the variants matrix
 * the measures taken by one run share theirs, named by report_status_name:
 *   ms_per_frame, its _lo, _hi, _noisy                          timing_status
 *   iterations_TOL, ms_TOL (and their interval), r_final,
 *   r_at_ni, own_last_step                                      convergence_status
 *   own_iterations_TOL, own_ms_TOL (and anything after them)     own_status_TOL
 * Its words: "ok" (measured; an empty number then was never reached), "refused", "failed",
 * "single update", "x* unsettled", "never in 5 s", "none" (no value of the range was stable),
 * …; an empty status where the measure does not apply to the row.
 * The bound of NAME is the column NAME_bound: "ge" where the number is a lower bound (≥, the
 * top of the range tried held), "le" an upper one (≤), empty where it is exact. */
#ifndef OPSIM_REPORT_STATUS_H
#define OPSIM_REPORT_STATUS_H

#include <stddef.h>

/* The status column of number column `column` written in `name`: its group's (the table above)
 * or COLUMN_status. Returns 1 for a group's, whose measures all take "ok" where none says
 * otherwise, and 0 for a column's own. */
int report_status_name(const char *column, char *name, size_t size);

/* Whether the variants matrix gives `column` a bound column even where no cell is a bound: the
 * robustness ranges' largest stable h and k (max_h_s, max_k). */
int report_status_bounded(const char *column);

/* The indices among `names` (count of them) of column c's status and bound columns, -1 where
 * the table has none. */
void report_status_find(const char *const *names, int count, int c, int *status, int *bound);

/* Whether column c is another column's status or bound (a column the displays fold away). */
int report_status_is_companion(const char *const *names, int count, int c);

/* "≥" for "ge", "≤" for "le", NULL for anything else. */
const char *report_status_bound_sign(const char *bound);

/* How a number cell reads: a bound's sign before it ("≥1e11"); an empty cell its status, or
 * "–" where the status is empty or "ok"; else the cell as written. Into text (size bytes). */
void report_status_display(const char *cell, const char *status, const char *bound, char *text, size_t size);

#endif
