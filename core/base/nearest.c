/* "Did you mean": the optimal string alignment distance (nearest.h). */
#include "base/nearest.h"

#include <string.h>

enum { LONGEST = 64 };

static int smallest(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

/* Edits between a[0, n) and b[0, m), both at most LONGEST characters. */
static int distance(const char *a, size_t n, const char *b, size_t m)
{
    int d[LONGEST + 1][LONGEST + 1];
    for (size_t i = 0; i <= n; ++i)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; ++j)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            int cost = a[i - 1] != b[j - 1];
            d[i][j] = smallest(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[n][m];
}

const char *op_nearest_name(const char *word, size_t length, const char *const *names, int count)
{
    if (length == 0 || length > LONGEST)
        return NULL;
    const char *best = NULL;
    int best_distance = 0;
    for (int k = 0; k < count; ++k) {
        size_t m = strlen(names[k]);
        if (m > LONGEST)
            continue;
        int d = distance(word, length, names[k], m);
        int allowed = (int)((length > m ? length : m) / 3);
        allowed = allowed < 1 ? 1 : allowed > 3 ? 3 : allowed;
        if (d <= allowed && (!best || d < best_distance))
            best = names[k], best_distance = d;
    }
    return best;
}
