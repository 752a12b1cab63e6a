/* A choice between a few equivalent ways of doing one thing (the same results, different
 * times), made by timing them where they run rather than by a threshold read on one machine.
 *
 * A calibration takes the options in turn, as the caller's slots say (slot mod options: the
 * caller numbers its calls so that every option meets the same circumstances, docs/timing.md),
 * until each has `trials` timed calls; the option with the least median time is then chosen
 * (ties to the lower index) and used for `settle` calls, after which the next calibration
 * starts: a machine's speeds change while a program runs (the two-core VMs move between near
 * and far cores for minutes at a time), and a stale choice would stay wrong for the whole run.
 * Only calls taken during a calibration are recorded. The choice never changes a result: the
 * caller offers only options that give the same bits.
 *
 * Turns. Several choices in one program would bias each other if they calibrated together: one
 * option's times would hold the other choice's alternation. op_choice_turn lets them calibrate
 * one at a time, in the order the caller lists them: the choice whose turn it is calibrates when
 * due (its first calibration, or its settle spent); every other one waits, taking its chosen
 * option (its `initial` one before its first calibration) and recording nothing, though its
 * settled calls still count. The turn passes on at a call to op_choice_turn that finds the
 * current choice not calibrating. */
#ifndef OPSIM_CHOICE_H
#define OPSIM_CHOICE_H

enum { OP_CHOICE_MAX_OPTIONS = 4, OP_CHOICE_MAX_TRIALS = 32 };

typedef struct op_choice {
    int options;         /* 2 .. OP_CHOICE_MAX_OPTIONS */
    int trials;          /* timed calls per option in a calibration, 1 .. OP_CHOICE_MAX_TRIALS */
    long settle;         /* calls between the end of a calibration and the next */
    int chosen;          /* the option in use; −1 until the first calibration ends */
    int initial;         /* the option taken while waiting before the first calibration (0) */
    int waiting;         /* 1: not this choice's turn (op_choice_turn): no calibration now */
    long settled_calls;  /* calls taken since the last calibration ended */
    int calibrations;    /* calibrations ended */
    int taken[OP_CHOICE_MAX_OPTIONS];
    double seconds[OP_CHOICE_MAX_OPTIONS][OP_CHOICE_MAX_TRIALS];
    double median[OP_CHOICE_MAX_OPTIONS]; /* the last calibration's medians (s); 0 before one */
} op_choice;

/* A choice among `options`, none yet chosen: the first calls calibrate. Values out of range are
 * clamped into it. */
void op_choice_init(op_choice *choice, int options, int trials, long settle);

/* Whether the next call belongs to a calibration (its time is to be recorded). */
int op_choice_calibrating(const op_choice *choice);

/* The option for the next call: slot mod options during a calibration, else the chosen one. */
int op_choice_take(op_choice *choice, long slot);

/* A calibration call's time: `option` took `seconds`. The last one wanted ends the calibration
 * and chooses. Calls outside a calibration, or beyond an option's trials, are ignored. */
void op_choice_record(op_choice *choice, int option, double seconds);

/* A choice timed over cycles: each call to op_choice_cycle_take ends the cycle the last call
 * began (its time recorded when it was a calibration's) and begins the next with the option it
 * returns, so that a cycle holds whatever the option's work leaves to what follows it. */
typedef struct op_choice_cycle {
    long calls;      /* cycles begun */
    int open;        /* a cycle has begun */
    int option;      /* the open cycle's option */
    int calibrating; /* the open cycle belongs to a calibration */
    double start;    /* its start (s, op_now's clock) */
} op_choice_cycle;

/* Ends the open cycle at `now` (s) and begins the next: the option op_choice_take gives for slot
 * cycle->calls + slot_offset. */
int op_choice_cycle_take(op_choice *choice, op_choice_cycle *cycle, long slot_offset, double now);

/* Gives the turn among choices[0 .. count − 1] (above, "Turns"): *turn is the index of the
 * choice whose turn it is (start with 0); it stays while that choice calibrates, else moves on to
 * the next one due, if any. Every choice but the one at *turn is set waiting. Call it before the
 * calls that take the choices' options, at a point where no choice's timed call is open. */
void op_choice_turn(op_choice *const *choices, int count, int *turn);

#endif
