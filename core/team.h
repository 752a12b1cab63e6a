/* What the OpenMP thread team's meeting costs on the machine at hand, measured while a program
 * runs: the time a cache line takes to go from one of the team's threads to another.
 *
 * On the virtual machines opsim is developed on, the two cores are sometimes near (their host
 * cores share a cache: a line handed over in about 40 ns) and sometimes far (about 210 ns), and
 * which, changes from one minute to the next with nothing in the VM to show it. A stage that
 * hands data between its threads, the contacts between bodies, then takes 2.4 times as long
 * (docs/performance.md, "The contact stage on one thread or on all"); the world measures this
 * each frame to choose where that stage runs (core/collide.h, `collision_threads = auto`). */
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

#endif
