/* What the OpenMP thread team's meeting costs on the machine at hand, measured while a program
 * runs: the time a cache line takes to go from one of the team's threads to another; and a run
 * of work items that a team shares, each thread taking its own from one end and the others' from
 * the other end when done.
 *
 * On the virtual machines opsim is developed on, the two cores are sometimes near (their host
 * cores share a cache: a line handed over in about 40 ns) and sometimes far (about 210 ns), and
 * which, changes from one minute to the next with nothing in the VM to show it. A stage that
 * hands data between its threads, the contacts between bodies, then takes 2.4 times as long
 * (docs/performance.md, "The contact stage on one thread or on all"). The world records this
 * measure each frame under `collision_threads = auto`; it chooses where that stage runs by
 * timing both options, not by this measure (core/contact/collide.h). */
#ifndef OPSIM_TEAM_H
#define OPSIM_TEAM_H

/* The time one cache line takes to go from thread 0 of a new team of two to thread 1 or back, in
 * ns: the two take an atomic counter in turn `handoffs` times (at least 2; an odd count takes
 * one more) after a few untimed turns, the mean of those timed. NAN when OpenMP gives fewer
 * than two threads (omp_get_max_threads() < 2) or when called inside a parallel region;
 * INFINITY when a thread waited for its turn so long that the other cannot have been running (a
 * machine with more threads than cores, or the second thread just made or woken on the first
 * one's core, before the system moves it), so that a caller choosing between one thread and
 * several reads it as a meeting too costly to have. */
double op_team_handoff_ns(int handoffs);

#include <stdint.h>

/* A thread's run of work items [first, last), packed as first·2^32 + last, each biased by
 * OP_RUN_BIAS: its owner takes items from one end, threads done with their own from the other,
 * and an atomic add to the packed pair gives every item to exactly one taker. A taker gives up
 * on a run after its first empty take, so no run takes more than one failed take per thread,
 * which the bias keeps from wrapping. On a line of its own: the takes are writes. The owner's
 * takes stay on its core's line until another thread comes to take, so a team's items go out
 * for an uncontended atomic each, where a shared loop counter moves between the cores at every
 * take. */
typedef struct op_run {
    uint64_t range;
    unsigned char pad_to_line[56];
} op_run;
enum { OP_RUN_BIAS = 1 << 20 };

void op_run_set(op_run *run, int first, int last);
/* An item from the low (low = 1) or high end of the run, or −1 when it is empty. */
int op_run_take(op_run *run, int low);

#endif
