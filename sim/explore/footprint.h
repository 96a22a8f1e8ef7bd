// What one explored step touched, for a driver that tells independent steps
// apart (sim/explore/dfs.h): two steps commute when neither is `global` and
// neither writes an object the other touches. An object is an address and
// a sub-index (the CPU of a per-CPU counter); tasks, CPUs and RCU's state
// are objects too (explore_env::begin_footprint()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace futexsim::sim::explore {

// Objects are named so that two runs agree on the names of what existed
// before they parted: a class, an index within it (the task, the n-th
// per-CPU counter allocated, the n-th hash seen) and an offset. A name of
// class `raw` is an address not yet named; a step that touched an object
// nobody could name commutes with nothing.
enum class obj_class : std::uint8_t {
    raw, task, cpu, rcu, percpu, stack, mm, word, fph, fph_queues, global_hash, policy,
};

inline std::uint64_t obj_id(obj_class c, std::uint64_t index, std::uint64_t offset)
{
    return (static_cast<std::uint64_t>(c) << 56) | ((index & 0xffffff) << 32) | (offset & 0xffffffff);
}
inline obj_class obj_class_of(std::uint64_t id) { return static_cast<obj_class>(id >> 56); }

struct step_access {
    std::uint64_t obj = 0;
    std::uint32_t sub = 0;
    bool write = false;
};

struct step_footprint {
    int task = -1;        // who took the step (-1: a grace period ended)
    bool global = false;  // dependent with every other step
    std::vector<step_access> accesses;
};

// Do two steps not commute? (Conservative: yes unless both list every
// object they touched and none that one writes is touched by the other.)
inline bool dependent(const step_footprint& a, const step_footprint& b)
{
    if (a.global || b.global || a.task == b.task)
        return true;
    for (const step_access& x : a.accesses)
        for (const step_access& y : b.accesses)
            if (x.obj == y.obj && x.sub == y.sub && (x.write || y.write))
                return true;
    return false;
}

// The candidate id of "the current grace period ends" when grace periods
// are scheduling choices (explore_env::config::timing_choices).
inline constexpr std::uint32_t gp_end_candidate = 0xffffffffu;

// The candidate "entry `index` of CPU `cpu`'s store buffer reaches memory"
// under a weak memory model (sim/explore/store_buffers.h).
inline constexpr std::uint32_t drain_candidate_base = 0xfe000000u;
inline std::uint32_t drain_candidate(unsigned cpu, std::size_t index)
{
    return drain_candidate_base | (cpu << 12) | static_cast<std::uint32_t>(index & 0xfff);
}
inline bool is_drain_candidate(std::uint32_t id) { return (id & 0xff000000u) == drain_candidate_base; }
inline unsigned drain_candidate_cpu(std::uint32_t id) { return (id >> 12) & 0xfff; }
inline std::size_t drain_candidate_index(std::uint32_t id) { return id & 0xfff; }
// A task's candidate (not a grace period's end, not a drain). Under arm64 a
// task about to load has one candidate per value it may read: the task's
// id with the value's index (0: the newest) above bit 20.
inline bool is_task_candidate(std::uint32_t id) { return id < drain_candidate_base; }
inline constexpr unsigned candidate_version_shift = 20;
inline std::uint32_t versioned_candidate(std::uint32_t task, std::size_t version)
{
    return task | static_cast<std::uint32_t>(version << candidate_version_shift);
}
inline std::uint32_t candidate_task(std::uint32_t id) { return id & ((1u << candidate_version_shift) - 1); }
inline std::size_t candidate_version(std::uint32_t id) { return id >> candidate_version_shift; }
// The footprint's `task` of a drain of CPU `cpu`: drains of one CPU are
// dependent on each other, as steps of one task are.
inline int drain_footprint_task(unsigned cpu) { return -100 - static_cast<int>(cpu); }

}  // namespace futexsim::sim::explore
