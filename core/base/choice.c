/* Choosing between equivalent options by timing them (choice.h). */
#include "base/choice.h"

#include <string.h>

#include "base/timing_stats.h"

static int clamp(long value, int lo, int hi)
{
    return value < lo ? lo : value > hi ? hi : (int)value;
}

void op_choice_init(op_choice *choice, int options, int trials, long settle)
{
    memset(choice, 0, sizeof *choice);
    choice->options = clamp(options, 2, OP_CHOICE_MAX_OPTIONS);
    choice->trials = clamp(trials, 1, OP_CHOICE_MAX_TRIALS);
    choice->settle = settle > 0 ? settle : 1;
    choice->chosen = -1;
}

/* Whether a calibration is due, whoever's turn it is */
static int due(const op_choice *choice)
{
    return choice->chosen < 0 || choice->settled_calls >= choice->settle;
}

int op_choice_calibrating(const op_choice *choice)
{
    return !choice->waiting && due(choice);
}

int op_choice_take(op_choice *choice, long slot)
{
    if (choice->waiting) {
        choice->settled_calls += choice->chosen >= 0;
        return choice->chosen >= 0 ? choice->chosen : choice->initial;
    }
    if (op_choice_calibrating(choice))
        return (int)(((slot % choice->options) + choice->options) % choice->options);
    choice->settled_calls++;
    return choice->chosen;
}

/* Every option timed `trials` times: the least median wins and a settled spell starts. */
static void choose(op_choice *choice)
{
    int best = 0;
    for (int o = 0; o < choice->options; ++o) {
        double copy[OP_CHOICE_MAX_TRIALS];
        memcpy(copy, choice->seconds[o], (size_t)choice->trials * sizeof *copy);
        choice->median[o] = op_timing_summarize(copy, choice->trials).median;
        if (choice->median[o] < choice->median[best])
            best = o;
        choice->taken[o] = 0;
    }
    choice->chosen = best;
    choice->settled_calls = 0;
    choice->calibrations++;
}

void op_choice_record(op_choice *choice, int option, double seconds)
{
    if (!op_choice_calibrating(choice) || option < 0 || option >= choice->options ||
        choice->taken[option] >= choice->trials)
        return;
    choice->seconds[option][choice->taken[option]++] = seconds;
    for (int o = 0; o < choice->options; ++o)
        if (choice->taken[o] < choice->trials)
            return;
    choose(choice);
}

void op_choice_turn(op_choice *const *choices, int count, int *turn)
{
    if (count <= 0)
        return;
    int current = *turn >= 0 && *turn < count ? *turn : 0;
    if (!due(choices[current]))
        for (int step = 1; step < count; ++step)
            if (due(choices[(current + step) % count])) {
                current = (current + step) % count;
                break;
            }
    for (int c = 0; c < count; ++c)
        choices[c]->waiting = c != current;
    *turn = current;
}

int op_choice_cycle_take(op_choice *choice, op_choice_cycle *cycle, long slot_offset, double now)
{
    if (cycle->open && cycle->calibrating)
        op_choice_record(choice, cycle->option, now - cycle->start);
    cycle->calibrating = op_choice_calibrating(choice);
    cycle->option = op_choice_take(choice, cycle->calls + slot_offset);
    cycle->start = now;
    cycle->open = 1;
    cycle->calls++;
    return cycle->option;
}
