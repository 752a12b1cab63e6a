/* Option values and operands the commands share: whole and positive numbers, repeated values
 * such as `--set SECTION.KEY=VALUE` kept in order, and the single run-file operand of info and
 * xdmf. Each parser only says yes or no; the command's message names the option. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int app_parse_int(const char *text, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < lo || value > hi)
        return -1;
    *out = (int)value;
    return 0;
}

int app_parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (text[0] == '-')
        return -1;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || end == text || *end)
        return -1;
    *out = value;
    return 0;
}

int app_parse_positive(const char *text, double *out)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(value) || value <= 0)
        return -1;
    *out = value;
    return 0;
}

int app_list_init(app_list *list, int capacity)
{
    list->count = 0;
    list->item = calloc((size_t)capacity, sizeof *list->item);
    return list->item ? 0 : -1;
}

void app_list_add(app_list *list, const char *item)
{
    list->item[list->count++] = item;
}

void app_list_free(app_list *list)
{
    free(list->item);
    list->item = NULL;
    list->count = 0;
}

int app_single_run_file(const app_call *call, const char *usage)
{
    if (call->argc == 2 && strcmp(call->argv[1], "--help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (call->argc != 2 || call->argv[1][0] == '-')
        return app_usage_error(call->argv[0], "%s", "give exactly one run file");
    return -1;
}
