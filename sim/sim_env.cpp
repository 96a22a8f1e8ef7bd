#include "sim/sim_env.h"

#include <algorithm>

namespace futexsim::sim {

// struct mutex: an owner word taken by cmpxchg; contenders sleep on a FIFO
// wait list and are handed the lock on unlock.
void sim_env::mutex_lock(mutex_t& m)
{
    task& self = eng_.current();
    const long me = static_cast<long>(self.id) + 1;
    long expected = 0;
    if (atomic_try_cmpxchg(m.owner, expected, me))
        return;
    m.waiters.push_back(self.id);
    while (m.owner.v != me)
        eng_.block();
}

void sim_env::mutex_unlock(mutex_t& m)
{
    if (m.waiters.empty()) {
        atomic_set(m.owner, 0L);
        return;
    }
    const std::uint32_t next = m.waiters.front();
    m.waiters.pop_front();
    atomic_set(m.owner, static_cast<long>(next) + 1);  // hand-off
    eng_.wake(eng_.task_by_id(next), eng_.now());
}

// A test-and-set spinlock: the waiter spins on its cached copy until the
// holder's release writes the line, then retries the RMW.
void sim_env::spin_lock(spinlock_t& l)
{
    ++eng_.current().preempt_count;
    for (;;) {
        int e = 0;
        if (atomic_try_cmpxchg(l.locked, e, 1))
            return;
        cache_line& line = *l.locked.line;
        eng_.spin_prepare(line);
        if (atomic_read(l.locked) == 0) {
            eng_.spin_cancel(line);
            continue;
        }
        eng_.spin_wait();
    }
}

void sim_env::spin_unlock(spinlock_t& l)
{
    atomic_set(l.locked, 0);
    --eng_.current().preempt_count;
}

void sim_env::wake_up_var(const void* var)
{
    auto it = var_waiters_.find(var);
    if (it == var_waiters_.end())
        return;
    std::vector<std::uint32_t> waiters = std::move(it->second);
    var_waiters_.erase(it);
    for (std::uint32_t id : waiters)
        eng_.wake(eng_.task_by_id(id), eng_.now());
}

}  // namespace futexsim::sim
