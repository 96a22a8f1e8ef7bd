// Who spins on a spinlock, since when, and who holds which: what the
// spinning-lock warning (sim/timed/progress_watch.h) reads. sim_env's spin_lock()
// and spin_unlock() record into it through one hook each (spin_watch_scope
// and spin_watch::released()); it reads the clock and never charges time,
// posts an event or draws a number, so a run with it prints what a run
// without it prints.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/timed/engine.h"

namespace futexsim::sim {

class spin_watch {
public:
    // `t` starts trying to take `lock` at `at`.
    void begin(const task& t, const void* lock, vtime at);
    // ... and has taken it.
    void acquired(const task& t, const void* lock);
    // `t` drops `lock`.
    void released(const task& t, const void* lock);

    // Since when task `id` has tried to take a spinlock it does not have
    // yet; -1 when it is not trying.
    vtime spinning_since(std::uint32_t id) const { return id < tasks_.size() ? tasks_[id].since : -1; }
    const void* lock_wanted(std::uint32_t id) const { return id < tasks_.size() ? tasks_[id].lock : nullptr; }
    // The id of a task holding `lock`, -1 if none is known. A scan of every
    // task: only a warning asks.
    long holder_of(const void* lock) const;
    std::size_t tasks_seen() const { return tasks_.size(); }

private:
    struct per_task {
        vtime since = -1;
        const void* lock = nullptr;
        std::vector<const void*> held;  // a task holds few at once: a small stack
    };
    per_task& of(const task& t);
    std::vector<per_task> tasks_;  // by task id
};

// spin_lock()'s hook: the task is spinning from construction until the lock
// is taken (the scope ends by the return). A null watch records nothing.
class spin_watch_scope {
public:
    spin_watch_scope(spin_watch* w, engine& e, const void* lock) : w_(w), lock_(lock)
    {
        if (w_) {
            t_ = &e.current();
            w_->begin(*t_, lock_, e.now());
        }
    }
    ~spin_watch_scope()
    {
        if (w_)
            w_->acquired(*t_, lock_);
    }
    spin_watch_scope(const spin_watch_scope&) = delete;
    spin_watch_scope& operator=(const spin_watch_scope&) = delete;

private:
    spin_watch* w_;
    const task* t_ = nullptr;
    const void* lock_;
};

}  // namespace futexsim::sim
