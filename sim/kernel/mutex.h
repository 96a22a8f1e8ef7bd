// struct mutex (kernel/locking/mutex.c) as the fiber environments run it,
// for futex_hash_lock: whoever finds the lock free takes it; a contender
// queues in FIFO order and sleeps; mutex_unlock() hands the lock to the
// first waiter (the kernel's MUTEX_FLAG_HANDOFF) and wakes it.
//
// The owner is the environment's own (a word on a cache line for the timed
// simulator, so that taking it costs a locked RMW; a task pointer for the
// explorer, whose step is the operation itself); the wait list is here.
#pragma once

#include <deque>

#include "sim/kernel/task.h"
#include "sim/kernel/wait_var.h"

namespace futexsim::sim::kernel {

template <class Owner>
struct mutex {
    Owner owner{};
    std::deque<task_struct*> waiters;  // handed the lock in this order
};

// mutex_lock() by `self`: `try_take()` is the fast path (take it if free);
// else the task queues and sleep()s until owns() (mutex_unlock() handed it
// the lock). A blocking call, so might_sleep().
template <class Owner, class TryTake, class Owns, class Sleep>
void mutex_lock(mutex<Owner>& m, task_struct* self, TryTake try_take, Owns owns, Sleep sleep)
{
    might_sleep(self, "mutex_lock()");
    if (try_take())
        return;
    m.waiters.push_back(self);
    while (!owns())
        sleep();
}

// mutex_unlock(): hand_to(next) gives the lock to the first waiter (nullptr:
// nobody waits, the lock is free), then wake(next).
template <class Owner, class HandTo, class Wake>
void mutex_unlock(mutex<Owner>& m, HandTo hand_to, Wake wake)
{
    if (m.waiters.empty()) {
        hand_to(nullptr);
        return;
    }
    task_struct* next = m.waiters.front();
    m.waiters.pop_front();
    hand_to(next);
    wake(*next);
}

}  // namespace futexsim::sim::kernel
