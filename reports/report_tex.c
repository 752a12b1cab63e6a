/* A table as a LaTeX booktabs tabular (report_tex.h): escaping, the S columns' format measured
 * from the cells, readable headers, the marks for words in number columns, the width estimate
 * and the table* remark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_tex.h"

/* LaTeX's reserved characters escaped, and the typographic ones LaTeX's default input does
 * not know spelled in its own terms (pdflatex reads the file as ASCII then). */
void report_tex_escape(const char *text, FILE *out)
{
    static const char *const spelling[][2] = {
        { "\\", "\\textbackslash{}" }, { "_", "\\_" },         { "%", "\\%" },          { "#", "\\#" },
        { "&", "\\&" },                { "{", "\\{" },         { "}", "\\}" },          { "$", "\\$" },
        { "^", "\\textasciicircum{}" }, { "~", "\\textasciitilde{}" }, { "<", "\\textless{}" },
        { ">", "\\textgreater{}" },   { "|", "\\textbar{}" },
        { "–", "--" },                 { "—", "---" },         { "≥", "$\\geq$" },      { "≤", "$\\leq$" },
        { "×", "$\\times$" },          { "−", "$-$" },         { "±", "$\\pm$" },       { "÷", "$\\div$" },
        { "†", "\\dag{}" },            { "…", "\\ldots{}" },   { "·", "$\\cdot$" },     { "→", "$\\to$" },
        { "≈", "$\\approx$" },         { "≠", "$\\neq$" },     { "°", "\\textdegree{}" }, { "ρ", "$\\rho$" },
        { "ℓ", "$\\ell$" },            { "α", "$\\alpha$" },   { "β", "$\\beta$" },     { "γ", "$\\gamma$" },
        { "Δ", "$\\Delta$" },          { "δ", "$\\delta$" },   { "ε", "$\\varepsilon$" }, { "λ", "$\\lambda$" },
        { "μ", "$\\mu$" },             { "µ", "$\\mu$" },      { "σ", "$\\sigma$" },    { "τ", "$\\tau$" },
        { "ω", "$\\omega$" },          { "θ", "$\\theta$" },   { "κ", "$\\kappa$" },    { "ü", "\\\"u" },
        { "ö", "\\\"o" },              { "é", "\\'e" },        { "½", "$\\frac{1}{2}$" }, { "²", "$^2$" },
        { "³", "$^3$" },               { "⁻", "$^{-}$" },      { "’", "'" },            { "“", "``" },
        { "”", "''" },
    };
    while (*text) {
        size_t s = 0, count = sizeof spelling / sizeof spelling[0];
        while (s < count && strncmp(text, spelling[s][0], strlen(spelling[s][0])) != 0)
            ++s;
        if (s < count) {
            fputs(spelling[s][1], out);
            text += strlen(spelling[s][0]);
        } else {
            fputc(*text++, out);
        }
    }
}

int report_tex_missing_cell(const char *cell)
{
    return !*cell || strcmp(cell, "–") == 0 || strcmp(cell, "-") == 0;
}

int report_tex_plain_number(const char *cell)
{
    char *end;
    if (!*cell || cell[strspn(cell, "0123456789.eE+-")] != '\0')
        return 0;
    strtod(cell, &end);
    return *end == '\0';
}

/* A bound: "≥" or "≤" before a plain number ("≥1e11"), set as $\geq$\num{1e11}. */
static const char *bound_number(const char *cell)
{
    static const char *const signs[] = { "≥", "≤" };
    for (size_t i = 0; i < sizeof signs / sizeof signs[0]; ++i)
        if (strncmp(cell, signs[i], strlen(signs[i])) == 0 && report_tex_plain_number(cell + strlen(signs[i])))
            return cell + strlen(signs[i]);
    return NULL;
}

static const char *cell_of(const report_tex_table *t, int r, int c)
{
    const char *cell = t->cell[(size_t)r * (size_t)t->columns + (size_t)c];
    return cell ? cell : "";
}

static void write_text(const report_tex_table *t, const char *text, FILE *out)
{
    (t->text ? t->text : report_tex_escape)(text, out);
}

/* What a column's cells need: siunitx's table-format (sign, integer and decimal digits,
 * exponent), the widest cell for the width estimate, and a text column's wrapped width. */
typedef struct tex_column {
    int numbers, words, sign, integer, decimals, exponent, exponent_sign, wrap_pt;
    size_t widest;
    double longest_word_pt; /* the narrowest a wrapped column can be */
    char align;
} tex_column;

/* The words of the numeric columns, each set as a letter (a, b, …) whose meaning the rows
 * after \bottomrule give: words widen a number column and break its alignment. */
enum { TEX_MARKS = 26 };
typedef struct tex_marks {
    const char *word[TEX_MARKS];
    int count;
} tex_marks;

static size_t characters(const char *text)
{
    size_t count = 0;
    for (; *text; ++text)
        count += ((unsigned char)*text & 0xC0) != 0x80;
    return count;
}

static void measure_number(const char *cell, tex_column *c)
{
    const char *p = cell;
    if (*p == '-' || *p == '+')
        c->sign = 1, ++p;
    int integer = (int)strspn(p, "0123456789");
    p += integer;
    int decimals = *p == '.' ? (int)strspn(p + 1, "0123456789") : 0;
    p += *p == '.' ? 1 + decimals : 0;
    if (*p == 'e' || *p == 'E') {
        ++p;
        if (*p == '-' || *p == '+')
            c->exponent_sign = 1, ++p;
        int exponent = (int)strlen(p);
        c->exponent = exponent > c->exponent ? exponent : c->exponent;
    }
    c->integer = integer > c->integer ? integer : c->integer;
    c->decimals = decimals > c->decimals ? decimals : c->decimals;
}

/* The widest word of a cell, as width_pt measures (a cell with `code` in typewriter, wider). */
static double longest_word_pt(const char *cell)
{
    double per_character = strchr(cell, '`') ? 5.25 : 4.3, widest = 0;
    for (const char *p = cell; *p;) {
        size_t n = strcspn(p, " ");
        char word[512];
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        double pt = per_character * (double)characters(word);
        widest = pt > widest ? pt : widest;
        p += n + (p[n] == ' ');
    }
    return widest;
}

/* Counts each column's numbers (and bounds) and words and measures them. In a table of
 * identifiers (not every_number) the first column is the key, never numeric. */
static void measure_columns(const report_tex_table *t, tex_column *column)
{
    for (int c = 0; c < t->columns; ++c) {
        tex_column *k = &column[c];
        memset(k, 0, sizeof *k);
        k->align = t->align ? t->align[c] : 'l';
        for (int r = 0; r < t->rows; ++r) {
            const char *cell = cell_of(t, r, c);
            k->widest = characters(cell) > k->widest ? characters(cell) : k->widest;
            double word = longest_word_pt(cell);
            k->longest_word_pt = word > k->longest_word_pt ? word : k->longest_word_pt;
            if (report_tex_missing_cell(cell))
                continue;
            if (report_tex_plain_number(cell) || bound_number(cell)) {
                k->numbers++;
                measure_number(report_tex_plain_number(cell) ? cell : bound_number(cell), k);
            } else {
                k->words++;
            }
        }
        if (c == 0 && !t->every_number)
            k->numbers = 0;
        if (t->every_number && k->words > 0)
            k->numbers = 0;
    }
}

static int numeric(const tex_column *c)
{
    return c->numbers > 0 && c->numbers >= c->words;
}

/* A header made readable. An identifier (no spaces): words for its underscores, a trailing
 * unit in parentheses, tolerances as numbers ("ms_1e-4" → "ms \num{1e-4}", "max_h_s" → "max h
 * (s)"). A name of more than one word and 12 characters on two lines (an identifier's first
 * half of its words on the first; words with spaces split at the space nearest the middle
 * outside markup), so that the header is no wider than its numbers need. */
enum { LABEL_WORDS = 16 };

typedef struct tex_label {
    char text[256];
    const char *word[LABEL_WORDS], *unit;
    int count;
} tex_label;

static void split_label(const char *name, tex_label *l)
{
    static const char *const unit[][2] = { { "ms", "ms" }, { "s", "s" },   { "m", "m" },   { "mm", "mm" },
                                           { "J", "J" },   { "kg", "kg" }, { "pct", "\\%" } };
    snprintf(l->text, sizeof l->text, "%s", name);
    char *last = strrchr(l->text, '_');
    l->unit = NULL;
    for (size_t u = 0; last && u < sizeof unit / sizeof unit[0]; ++u)
        if (strcmp(last + 1, unit[u][0]) == 0)
            l->unit = unit[u][1];
    if (l->unit)
        *last = '\0';
    l->count = 0;
    for (char *word = strtok(l->text, "_"); word && l->count < LABEL_WORDS; word = strtok(NULL, "_"))
        l->word[l->count++] = word;
}

/* Whether the label goes on two lines: more than one word and longer than 12 characters. */
static int two_lines(const tex_label *l, const char *name)
{
    return l->count + (l->unit != NULL) > 1 && characters(name) > 12;
}

/* Where a header of words goes onto its second line: the space nearest its middle that is
 * outside `code`, [links], <tags> and (parentheses); 0 for one line. */
static size_t phrase_break(const char *name)
{
    size_t length = strlen(name), best = 0;
    if (characters(name) <= 12)
        return 0;
    int ticks = 0, depth = 0;
    for (size_t i = 0; i < length; ++i) {
        char c = name[i];
        ticks ^= c == '`';
        depth += (c == '[' || c == '<' || c == '(') - (c == ']' || c == '>' || c == ')');
        if (c == ' ' && !ticks && depth == 0 && i > 0 &&
            (!best || abs((int)(2 * i) - (int)length) < abs((int)(2 * best) - (int)length)))
            best = i;
    }
    return best;
}

/* The characters of the label's wider line. */
static size_t label_width(const char *name)
{
    if (strchr(name, ' ')) {
        size_t at = phrase_break(name), whole = characters(name);
        if (!at)
            return whole;
        char first[512];
        snprintf(first, sizeof first, "%.*s", (int)at, name);
        size_t one = characters(first), two = whole - one - 1;
        return one > two ? one : two;
    }
    tex_label l;
    split_label(name, &l);
    size_t line[2] = { 0, 0 };
    int lines = two_lines(&l, name) ? 2 : 1, half = (l.count + 1) / 2;
    for (int w = 0; w < l.count; ++w)
        line[lines == 2 && w >= half] += characters(l.word[w]) + 1;
    line[lines - 1] += l.unit ? characters(l.unit) + 3 : 0;
    return line[0] > line[1] ? line[0] : line[1];
}

static void write_phrase_label(const report_tex_table *t, const char *name, FILE *out)
{
    size_t at = phrase_break(name);
    if (!at) {
        write_text(t, name, out);
        return;
    }
    char first[512];
    snprintf(first, sizeof first, "%.*s", (int)at, name);
    fputs("\\begin{tabular}[b]{@{}c@{}}", out);
    write_text(t, first, out);
    fputs(" \\\\ ", out);
    write_text(t, name + at + 1, out);
    fputs("\\end{tabular}", out);
}

static void write_label(const report_tex_table *t, const char *name, FILE *out)
{
    if (strchr(name, ' ')) {
        write_phrase_label(t, name, out);
        return;
    }
    tex_label l;
    split_label(name, &l);
    int two = two_lines(&l, name), half = (l.count + 1) / 2;
    if (two)
        fputs("\\begin{tabular}[b]{@{}c@{}}", out);
    for (int w = 0; w < l.count; ++w) {
        fputs(w == 0 ? "" : two && w == half ? " \\\\ " : " ", out);
        if (report_tex_plain_number(l.word[w]))
            fprintf(out, "\\num{%s}", l.word[w]);
        else
            write_text(t, l.word[w], out);
    }
    if (l.unit)
        fprintf(out, "%s(%s)", two && half == l.count ? " \\\\ " : " ", l.unit);
    if (two)
        fputs("\\end{tabular}", out);
}

static void write_column_spec(const tex_column *c, FILE *out)
{
    if (c->wrap_pt) {
        fprintf(out, ">{\\ragged%s\\arraybackslash}p{%dpt}", c->align == 'r' ? "left" : "right", c->wrap_pt);
        return;
    }
    if (!numeric(c)) {
        fputc(c->align == 'r' ? 'r' : 'l', out);
        return;
    }
    fprintf(out, "S[table-format=%s%d", c->sign ? "-" : "", c->integer ? c->integer : 1);
    if (c->decimals)
        fprintf(out, ".%d", c->decimals);
    if (c->exponent)
        fprintf(out, "e%s%d", c->exponent_sign ? "-" : "", c->exponent);
    fputc(']', out);
}

/* About how wide the tabular sets at \\small, in pt, measured against xelatex's Latin Modern:
 * 4.3 a letter, 4.63 a digit, 2.5 the point, 7 a sign, 35 more for an exponent ("× 10^-5");
 * each column the wider of its cells (a wrapped one its width, or its longest word) and its
 * header's line (a wrapped one's header wraps too); TEX_GAP_PT between columns and none
 * outside (@{}); a key row under the table as wide as its words at \\footnotesize; all but the
 * gaps times `scale`, the font's size against \\small's. It matches the variants tables within
 * a few pt (tools/test-tex.sh reports a table that does not fit where this puts it). */
enum { TEX_GAP_PT = 7, TEX_NARROWEST_WRAP_PT = 60, TEX_WRAP_MARGIN_PT = 24 };

static double cells_pt(const tex_column *k)
{
    if (k->wrap_pt)
        return k->wrap_pt;
    return numeric(k) ? 7.0 * k->sign + 4.63 * ((k->integer ? k->integer : 1) + k->decimals) +
                            (k->decimals ? 2.5 : 0) + (k->exponent ? 35 : 0)
                      : 4.3 * (double)k->widest;
}

static double column_pt(const report_tex_table *t, const tex_column *column, int c, double scale)
{
    const tex_column *k = &column[c];
    int wraps = k->wrap_pt && strchr(t->header[c], ' ');
    double label = wraps ? longest_word_pt(t->header[c]) : 4.3 * (double)label_width(t->header[c]);
    double cells = k->wrap_pt ? cells_pt(k) : scale * cells_pt(k);
    return cells > scale * label ? cells : scale * label;
}

static int width_pt(const report_tex_table *t, const tex_column *column, const tex_marks *marks, double scale)
{
    double pt = TEX_GAP_PT * (t->columns - 1);
    for (int c = 0; c < t->columns; ++c)
        pt += column_pt(t, column, c, scale);
    for (int m = 0; m < marks->count; ++m) {
        double key = 3.8 * scale * (double)(characters(marks->word[m]) + 3);
        pt = key > pt ? key : pt;
    }
    return (int)(pt + 0.5);
}

/* The narrowest a wrapped column can be: its longest word, at least TEX_NARROWEST_WRAP_PT. */
static double narrowest_pt(const tex_column *k, double scale)
{
    double word = scale * k->longest_word_pt;
    return word > TEX_NARROWEST_WRAP_PT ? word : TEX_NARROWEST_WRAP_PT;
}

/* A table wider than the page: its widest text columns wrapped, each down to what the excess
 * asks, its longest word or TEX_NARROWEST_WRAP_PT, until it fits or none is left to narrow. */
static void wrap_to_page(const report_tex_table *t, tex_column *column, const tex_marks *marks, double scale,
                         int page_pt)
{
    for (int c = 0; c < t->columns; ++c)
        column[c].wrap_pt = 0;
    for (int round = 0; round < 2 * t->columns; ++round) {
        int excess = width_pt(t, column, marks, scale) - (page_pt - TEX_WRAP_MARGIN_PT), widest = -1;
        double widest_pt = 0;
        for (int c = 0; c < t->columns && excess > 0; ++c) {
            const tex_column *k = &column[c];
                double pt = column_pt(t, column, c, scale), least = narrowest_pt(k, scale);
            if (!numeric(k) && pt > least + 1 && pt > widest_pt)
                widest = c, widest_pt = pt;
        }
        if (widest < 0)
            return;
        int wrap = (int)(widest_pt - excess), least = (int)(narrowest_pt(&column[widest], scale) + 1);
        column[widest].wrap_pt = wrap > least ? wrap : least;
    }
}

/* The font the table is set in and the columns wrapped for it: \\small, else the first
 * smaller one (\\footnotesize, \\scriptsize) in which wrapping makes it fit both columns,
 * else the same on a landscape page, REPORT_TEX_LANDSCAPE_PT (the wrapped estimate aims
 * TEX_WRAP_MARGIN_PT short of it: wrapped text runs a little wider than estimated). */
static const char *fit_to_page(const report_tex_table *t, tex_column *column, const tex_marks *marks, double *scale)
{
    static const struct { const char *command; double scale; } size[] = {
        { "", 1.0 }, { "\\footnotesize", 8.0 / 9.0 }, { "\\scriptsize", 7.0 / 9.0 }
    };
    static const int page[] = { REPORT_TEX_PAGE_PT, REPORT_TEX_LANDSCAPE_PT };
    int sizes = (int)(sizeof size / sizeof size[0]), s = 0;
    for (int p = 0; p < 2; ++p)
        for (s = 0; s < sizes; ++s) {
            wrap_to_page(t, column, marks, size[s].scale, page[p]);
            if (width_pt(t, column, marks, size[s].scale) <= page[p]) {
                *scale = size[s].scale;
                return size[s].command;
            }
        }
    *scale = size[sizes - 1].scale;
    return size[sizes - 1].command;
}

/* A cell that is neither a number, a bound nor missing, in a numeric column: a word. */
static int word_in_numbers(const char *cell, const tex_column *c)
{
    return numeric(c) && !report_tex_missing_cell(cell) && !report_tex_plain_number(cell) && !bound_number(cell);
}

static int mark_of(const tex_marks *m, const char *cell)
{
    for (int i = 0; i < m->count; ++i)
        if (strcmp(m->word[i], cell) == 0)
            return i;
    return -1;
}

static void collect_marks(const report_tex_table *t, const tex_column *column, tex_marks *m)
{
    m->count = 0;
    for (int r = 0; r < t->rows; ++r)
        for (int c = 0; c < t->columns; ++c) {
            const char *cell = cell_of(t, r, c);
            if (word_in_numbers(cell, &column[c]) && mark_of(m, cell) < 0 && m->count < TEX_MARKS)
                m->word[m->count++] = cell;
        }
}

static void write_bound_or_text(const report_tex_table *t, const char *cell, FILE *out)
{
    const char *number = bound_number(cell);
    if (number) {
        char sign[8];
        snprintf(sign, sizeof sign, "%.*s", (int)(number - cell), cell);
        report_tex_escape(sign, out);
        fprintf(out, "\\num{%s}", number);
    } else if (report_tex_missing_cell(cell) && *cell) {
        fputs("--", out);
    } else {
        write_text(t, cell, out);
    }
}

static void write_cell(const report_tex_table *t, const char *cell, const tex_column *c, const tex_marks *marks,
                       FILE *out)
{
    if (!numeric(c)) {
        write_bound_or_text(t, cell, out);
        return;
    }
    if (report_tex_plain_number(cell) || !*cell) {
        fputs(cell, out);
        return;
    }
    int mark = word_in_numbers(cell, c) ? mark_of(marks, cell) : -1;
    fputc('{', out);
    if (mark >= 0)
        fprintf(out, "\\emph{%c}", 'a' + mark);
    else
        write_bound_or_text(t, cell, out);
    fputc('}', out);
}

/* The key to the marks, a row each under the table, left-aligned across every column. */
static void write_marks_key(const report_tex_table *t, const tex_marks *m, FILE *out)
{
    for (int i = 0; i < m->count; ++i) {
        fprintf(out, "\\multicolumn{%d}{@{}l}{\\footnotesize \\emph{%c}: ", t->columns, 'a' + i);
        write_text(t, m->word[i], out);
        fputs("} \\\\\n", out);
    }
}

void report_tex_write(const report_tex_table *table, FILE *out)
{
    report_tex_table t = *table;
    t.columns = t.columns < REPORT_TEX_MAX_COLUMNS ? t.columns : REPORT_TEX_MAX_COLUMNS;
    tex_column column[REPORT_TEX_MAX_COLUMNS];
    measure_columns(&t, column);
    tex_marks marks;
    collect_marks(&t, column, &marks);
    double scale;
    const char *font = fit_to_page(&t, column, &marks, &scale);
    int pt = width_pt(&t, column, &marks, scale);
    /* wider than a landscape page even in the smallest font and wrapped to its words: scaled
       down to the line's width (graphicx), so that it never runs over */
    int scaled = pt > REPORT_TEX_LANDSCAPE_PT;
    fprintf(out, "%% generated by %s; do not edit\n", t.origin);
    fprintf(out, "%% needs \\usepackage{booktabs,siunitx%s}; about %d pt wide: %s\n", scaled ? ",graphicx" : "", pt,
            pt <= REPORT_TEX_COLUMN_PT ? "fits one column of a two-column page"
            : pt <= REPORT_TEX_PAGE_PT ? "wider than a column, set it in a table* (both columns)"
            : !scaled                  ? "wider than both columns, set it in a table* on a landscape page"
                                       : "wider than a landscape page, scaled to the line's width: set it in a "
                                         "table* on a landscape page");
    fprintf(out, "\\begingroup%s\\setlength{\\tabcolsep}{%gpt}\n%s\\begin{tabular}{@{}", font, TEX_GAP_PT / 2.0,
            scaled ? "\\resizebox{\\linewidth}{!}{%\n" : "");
    for (int c = 0; c < t.columns; ++c)
        write_column_spec(&column[c], out);
    fputs("@{}}\n\\toprule\n", out);
    for (int c = 0; c < t.columns; ++c) {
        fputs(numeric(&column[c]) ? "{" : "", out);
        if (column[c].wrap_pt && strchr(t.header[c], ' '))
            write_text(&t, t.header[c], out); /* wraps with its column */
        else
            write_label(&t, t.header[c], out);
        fputs(numeric(&column[c]) ? "}" : "", out);
        fputs(c < t.columns - 1 ? " & " : " \\\\\n\\midrule\n", out);
    }
    for (int r = 0; r < t.rows; ++r)
        for (int c = 0; c < t.columns; ++c) {
            write_cell(&t, cell_of(&t, r, c), &column[c], &marks, out);
            fputs(c < t.columns - 1 ? " & " : " \\\\\n", out);
        }
    fputs("\\bottomrule\n", out);
    write_marks_key(&t, &marks, out);
    fputs(scaled ? "\\end{tabular}}\n\\endgroup\n" : "\\end{tabular}\n\\endgroup\n", out);
}
