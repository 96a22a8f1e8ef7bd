// The explorer's weak memory (docs/testing.md, "Weak memory"): how its
// environment uses the store buffers (store_buffers.h) and arm64's load
// views (load_views.h): barriers that wait for drains, a drain as a step of
// its own, the candidates for a load's values and for the drains.
#include "sim/explore/explore_env.h"

#include <cstring>

#include <fmt/format.h>

namespace futexsim::sim::explore {

void explore_env::smp_wmb()
{
    if (mem_.weak() && in_task() && !mem_.empty(current().cpu)) {
        record_access(&mem_, true, current().cpu);
        mem_.fence(current().cpu);
    }
}

// spin_lock() and mutex_lock(): a locked instruction on x86 (a full
// barrier); an acquire on arm64, which loads in program order and stores
// that wait behind it already honour.
void explore_env::lock_acquire_barrier()
{
    if (mem_.model() == memory_model::tso)
        full_barrier();
    else if (in_task())
        views_full(current().cpu);  // sees the last holder's section: its unlock was a full barrier
}

void explore_env::smp_rmb()
{
    if (mem_.model() == memory_model::arm64 && in_task())
        views_.rmb(current().cpu);
}

void explore_env::views_full(unsigned cpu)
{
    if (mem_.model() != memory_model::arm64)
        return;
    views_.full(cpu);
    record_access(&views_, false);  // what "now" is depends on every write before
}

std::size_t explore_env::load_choices(const explore_task& t) const
{
    if (mem_.model() != memory_model::arm64 || !t.load_cell || t.state != task_state::runnable ||
        mem_.holds(t.cpu, t.load_cell))
        return 1;
    std::uint64_t bits = 0;
    std::memcpy(&bits, t.load_cell, t.load_size);
    return views_.choices(t.cpu, t.load_cell, bits);
}

// Beside the tasks: arm64's loads, one candidate per value each may read
// (load_views.h), and every store-buffer entry that may drain now.
void explore_env::add_memory_candidates(std::vector<std::uint32_t>& ids) const
{
    const std::size_t tasks = ids.size();
    if (arm64_)
        for (std::size_t i = 0; i < tasks; i++)
            for (std::size_t j = 1; j < load_choices(*tasks_[ids[i]]); j++)
                ids.push_back(versioned_candidate(ids[i], j));
    for (const auto& [cpu, index] : mem_.drainable())
        ids.push_back(drain_candidate(cpu, index));
}

void explore_env::await_drained(const void* word)
{
    if (!weak_ || !in_task() || tearing_down_)
        return;
    explore_task& self = current();
    while (mem_.holds(self.cpu, word) && !tearing_down_) {
        self.awaiting_drain = true;
        self.drain_word = word;
        sched_fiber_ = std::move(sched_fiber_).resume();
    }
    self.awaiting_drain = false;
    record_access(&mem_, false, self.cpu);
}

void explore_env::drain_cpu(unsigned cpu)
{
    if (mem_.empty(cpu))
        return;
    record_access(&mem_, true, cpu);
    mem_.drain_all(cpu);
}

// What reaching memory touches: the word, and the CPU's buffer at it.
void explore_env::record_commit(unsigned cpu, const buffered_store& e, std::uint64_t before)
{
    record_access(e.obj, true, e.sub);
    record_access(e.obj, true, buffer_sub(e.sub, cpu));
    if (mem_.model() == memory_model::arm64) {
        std::uint64_t after = 0;
        std::memcpy(&after, e.addr, e.size);
        views_.wrote(cpu, e.addr, e.size, before, after);
        record_access(&views_, true);  // every write is a tick of the views' clock
    }
}

// One buffered store reaches memory as a step of its own: a scheduling
// choice. Its footprint is the CPU's buffer (every drain of one CPU is
// dependent on every other) and the word.
void explore_env::drain_step(unsigned cpu, std::size_t index)
{
    ++step_;
    const buffered_store e = mem_.entry(cpu, index);
    if (cfg_.record_footprints)
        footprints_.push_back(step_footprint{drain_footprint_task(cpu), false, {}});
    mem_.drain_one(cpu, index);
    if (mem_.empty(cpu))  // the CPU's other tasks may switch in again
        record_access(&mem_, true, cpu);
    explore_task& t = *tasks_[static_cast<std::size_t>(e.task)];
    const op_event ev{op_kind::drain, e.addr, 0, 0, cpu, "", fmt::format("cpu{} store buffer", cpu)};
    t.notes.clear();
    for (explore_observer* o : observers_)
        o->on_step(t, ev);
    advance_time();
}

}  // namespace futexsim::sim::explore
