/* `opsim cache`: the graph cache's entries checked against fresh builds (verify) or cleared of
 * what is invalid (prune); core/geometry/graph_cache.h.
 *
 * usage: opsim cache verify [--sample N | --all]
 *        opsim cache prune [--all] */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "geometry/graph_cache.h"

const char app_cache_usage[] =
    "usage: opsim cache verify [--sample N | --all]\n"
    "       opsim cache prune [--all]\n"
    "\n"
    "The graph cache (data/cache/graphs, or $OPSIM_GRAPH_CACHE; core/geometry/graph_cache.h).\n"
    "verify  reads N entries (default 8, spread evenly over the entries sorted by name; --all:\n"
    "        every one) with every check, builds each again from the mesh and build def it holds\n"
    "        and compares the two bit for bit. One line per entry; exit 65 if any is invalid or\n"
    "        differs. Changes nothing.\n"
    "prune   removes the entries that fail a check (damaged, another builder version or format)\n"
    "        and temporary files left by ended processes; --all removes every entry. One line per\n"
    "        removed file, then the counts.\n";

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries' names, sorted; *count of them. NULL with *count 0 when there are none. */
static char **entry_names(const char *directory, int *count)
{
    *count = 0;
    DIR *dir = opendir(directory);
    if (!dir)
        return NULL;
    int capacity = 0;
    char **names = NULL;
    struct dirent *entry;
    while ((entry = readdir(dir)))
        if (op_graph_cache_is_entry_name(entry->d_name)) {
            if (*count == capacity) {
                capacity = capacity ? 2 * capacity : 64;
                char **grown = realloc(names, (size_t)capacity * sizeof *names);
                if (!grown)
                    break;
                names = grown;
            }
            names[(*count)++] = strdup(entry->d_name);
        }
    closedir(dir);
    if (names)
        qsort(names, (size_t)*count, sizeof *names, compare_names);
    return names;
}

static const char *const VERDICTS[] = { "same", "DIFFERENT", "INVALID", "stale", "unbuildable" };

static int cache_verify(const char *directory, int sample)
{
    int count;
    char **names = entry_names(directory, &count);
    int checked = sample <= 0 || sample > count ? count : sample, bad = 0, tally[5] = { 0 };
    for (int s = 0; s < checked; ++s) {
        int e = checked == count ? s : (int)((long)s * count / checked);
        if (!names[e])
            continue;
        char why[1024];
        int verdict = op_graph_cache_verify_entry(directory, names[e], why, sizeof why);
        ++tally[verdict];
        bad += verdict == OP_GRAPH_CACHE_VERIFY_DIFFERENT || verdict == OP_GRAPH_CACHE_VERIFY_INVALID;
        printf("%s/%s\t%s%s%s\n", directory, names[e], VERDICTS[verdict], why[0] ? ": " : "", why);
    }
    printf("# %d of %d entries: %d same, %d different, %d invalid, %d stale, %d unbuildable\n", checked, count,
           tally[0], tally[1], tally[2], tally[3], tally[4]);
    for (int e = 0; e < count; ++e)
        free(names[e]);
    free(names);
    if (bad)
        fprintf(stderr, "%s: %s: %d entries invalid or different from a fresh build\n", app_program, directory, bad);
    return bad ? EXIT_DATA : 0;
}

static void print_removed(const char *path, const char *why)
{
    printf("removed %s\t%s\n", path, why);
}

static int cache_prune(const char *directory, int all)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph_cache_prune_count count;
    if (op_graph_cache_prune(&ctx, directory, all, print_removed, &count) != OP_OK)
        return app_report_failure(&ctx);
    printf("# kept %d entries; removed %d invalid, %d valid (--all), %d temporary files\n", count.kept,
           count.removed_invalid, count.removed_valid, count.removed_temporary);
    return 0;
}

int app_cache(const app_call *call)
{
    static const struct option options[] = { { "sample", required_argument, 0, 's' },
                                              { "all", no_argument, 0, 'a' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    int sample = 8, all = 0, c;
    while ((c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's':
            if (app_parse_int(optarg, 1, 1000000000, &sample))
                return app_usage_error("cache", "--sample: '%s' is not a whole number from 1", optarg);
            break;
        case 'a': all = 1; break;
        case 'h': fputs(app_cache_usage, stdout); return 0;
        default: return app_usage_error("cache", "%s", "unknown option");
        }
    }
    if (optind != call->argc - 1)
        return app_usage_error("cache", "%s", "give one action: verify or prune");
    const char *directory = op_graph_cache_directory(), *action = call->argv[optind];
    if (!directory)
        return app_usage_error("cache", "%s", "the graph cache is off (OPSIM_GRAPH_CACHE)");
    if (strcmp(action, "verify") == 0)
        return cache_verify(directory, all ? 0 : sample);
    if (strcmp(action, "prune") == 0)
        return cache_prune(directory, all);
    return app_usage_error("cache", "unknown action '%s' (verify or prune)", action);
}
