#include "sim/timed/lockup_detector.h"

#include <algorithm>

namespace futexsim::sim {

spin_watch::per_task& spin_watch::of(const task& t)
{
    if (t.id >= tasks_.size())
        tasks_.resize(t.id + 1);
    return tasks_[t.id];
}

void spin_watch::begin(const task& t, const void* lock, vtime at)
{
    per_task& p = of(t);
    p.since = at;
    p.lock = lock;
}

void spin_watch::acquired(const task& t, const void* lock)
{
    per_task& p = of(t);
    p.since = -1;
    p.lock = nullptr;
    p.held.push_back(lock);
}

void spin_watch::released(const task& t, const void* lock)
{
    per_task& p = of(t);
    // Locks are mostly dropped in the reverse order: look from the top.
    const auto it = std::find(p.held.rbegin(), p.held.rend(), lock);
    if (it != p.held.rend())
        p.held.erase(std::next(it).base());
}

long spin_watch::holder_of(const void* lock) const
{
    for (std::size_t id = 0; id < tasks_.size(); id++)
        if (std::find(tasks_[id].held.begin(), tasks_[id].held.end(), lock) != tasks_[id].held.end())
            return static_cast<long>(id);
    return -1;
}

}  // namespace futexsim::sim
