// What each explored step touched (sim/explore/footprint.h), as the
// explorer records it for the reduction of sim/explore/dfs.h: the objects
// the environment can name itself, and which steps commute with nothing.
#include "sim/explore/explore_env.h"

#include "sim/explore/fiber_stack_pool.h"

namespace futexsim::sim::explore {

void explore_env::record_object(std::uint64_t id, bool write, std::uint32_t sub) const
{
    if (cfg_.record_footprints && !footprints_.empty())
        footprints_.back().accesses.push_back(step_access{id, sub, write});
}

void explore_env::record_gp_read() const
{
    if (cfg_.record_footprints && !footprints_.empty())
        record_object(obj_id(obj_class::rcu, 0, 0), false);
}

void explore_env::record_access(const void* obj, bool write, std::uint32_t sub)
{
    if (cfg_.record_footprints && !footprints_.empty())
        record_object(object_name(obj), write, sub);
}

// What the environment can name itself: tasks, their stacks (a futex_q
// lives on its waiter's), per-CPU counters, its own CPU and RCU state.
std::uint64_t explore_env::object_name(const void* p) const
{
    if (p == &cfg_)
        return obj_id(obj_class::cpu, 0, 0);
    if (p == &gp_)
        return obj_id(obj_class::rcu, 0, 0);
    if (p == &mem_)  // the order of a CPU's store buffer (sub: the CPU)
        return obj_id(obj_class::cpu, 1, 0);
    if (p == &views_)  // arm64's clock of writes (load_views.h)
        return obj_id(obj_class::cpu, 2, 0);
    if (auto it = percpu_index_.find(p); it != percpu_index_.end())
        return obj_id(obj_class::percpu, it->second, 0);
    const char* c = static_cast<const char*>(p);
    for (const auto& t : tasks_) {
        if (p == t.get())
            return obj_id(obj_class::task, static_cast<std::uint64_t>(t->id), 0);
        const char* base = static_cast<const char*>(t->stack_base);
        if (base && c >= base && c < base + fiber_stack_bytes)
            return obj_id(obj_class::stack, static_cast<std::uint64_t>(t->id),
                          static_cast<std::uint64_t>(c - base));
    }
    return reinterpret_cast<std::uintptr_t>(
        p);  // raw: the harness names it or the step goes global
}

void explore_env::commute_with_nothing()
{
    if (cfg_.record_footprints && !footprints_.empty())
        footprints_.back().global = true;
}

// Every step reads its own task (a wake-up of it writes it) and its CPU
// (entering or leaving a non-preemptible section writes it: that decides
// who else on the CPU is a candidate). The rcu task moves between CPUs and
// runs callbacks: its steps commute with nothing.
void explore_env::begin_footprint(int task)
{
    if (!cfg_.record_footprints)
        return;
    footprints_.push_back(step_footprint{task, task < 0, {}});
    if (task >= 0) {
        const explore_task& t = *tasks_[static_cast<std::size_t>(task)];
        record_access(&t, false);
        record_access(&cfg_, false, t.cpu);
        if (t.kernel)
            commute_with_nothing();
    }
}

void explore_env::record_section_change(const explore_task& t, bool was_in_section)
{
    if (t.in_section() != was_in_section)
        record_access(&cfg_, true, t.cpu);
}

// The current step's footprint; nullptr when not recording.
step_footprint* explore_env::current_footprint()
{
    return cfg_.record_footprints && !footprints_.empty() ? &footprints_.back() : nullptr;
}

}  // namespace futexsim::sim::explore
