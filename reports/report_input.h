/* The inputs every section of opsim-report reads: tab-separated tables (data/models.tsv,
 * reports/paper_table1.tsv, the experiments' TSVs), bench_scenes' CSV and the machine's
 * processor name. The bottom layer of opsim-report: it includes no other report header. */
#ifndef OPSIM_REPORT_INPUT_H
#define OPSIM_REPORT_INPUT_H

#include <stddef.h>

#include "opsim/ctx.h"

/* REPORT_MAX_FIELDS: the variants matrix keyed (matrix-keyed.tsv), its status columns and
 * note last, and room for more measures. */
enum { REPORT_MAX_ROWS = 256, REPORT_MAX_FIELDS = 64, REPORT_FIELD_SIZE = 256 };

/* A tab-separated table's rows; '#' lines and empty lines are skipped. */
typedef struct report_table {
    int rows, columns[REPORT_MAX_ROWS];
    char cell[REPORT_MAX_ROWS][REPORT_MAX_FIELDS][REPORT_FIELD_SIZE];
} report_table;

/* A table whose first line names the columns (docs/results.md): the rows after it. A first
 * line starting with '#' is a comment, as in a table of before the tidy format. Every row must
 * have at least min_columns fields (OP_ERR_PARSE naming file and line). */
int report_read_table(op_ctx *ctx, const char *path, int min_columns, report_table *t);
/* The same for a file without a header line (build/flags): every line a row. */
int report_read_rows(op_ctx *ctx, const char *path, int min_columns, report_table *t);

/* One measured row of bench_scenes' CSV, its non-empty cells by the header's column names. */
enum { REPORT_BENCH_KEYS = 64, REPORT_BENCH_KEY_SIZE = 48 };
typedef struct report_bench_row {
    int count;
    char key[REPORT_BENCH_KEYS][REPORT_BENCH_KEY_SIZE];
    char value[REPORT_BENCH_KEYS][REPORT_FIELD_SIZE];
} report_bench_row;

/* The value of `key` in the row, NULL when it has none. */
const char *report_bench_value(const report_bench_row *row, const char *key);
/* bench_scenes' CSV (a header row naming the columns, then one row per scene and unit): the
 * rows describing a whole scene (per = scene) with the given edge_rule ("catalogue": the
 * matched graphs; "faces": the face rule's), in file order, into rows[REPORT_MAX_ROWS]. A row
 * whose cell count differs from the header's, or a file without such rows, is OP_ERR_PARSE. */
int report_read_bench(op_ctx *ctx, const char *path, const char *edge_rule, report_bench_row *rows, int *count);

/* The processor's name from /proc/cpuinfo ("unknown" elsewhere). */
void report_cpu_model(char *out, size_t size);

#endif
