// What an arm64 load may read (docs/testing.md, "Weak memory"): ARMv8 may
// satisfy a load before an earlier one, so a load may return a value that
// memory has since overwritten, as long as nothing orders it later. The
// explorer keeps each word's values in the order they reached memory (one
// order for all CPUs: arm64 is other-multi-copy atomic) and, per CPU, how
// old a value a load may still return (a view, as in Pulte et al.'s
// "Promising-ARM", PLDI 2019, without its promises):
//
// - coherence: never older than what this CPU already read or wrote there;
// - the floor: never older than the value current at the time the floor
//   names. A full barrier (smp_mb(), a fully ordered atomic, schedule(),
//   a lock taken, the end of a grace period) raises it to now; smp_rmb()
//   to the newest value this CPU has read; an acquire load, and a load of
//   a pointer (rcu_dereference(): the address dependency, taken for every
//   load made after it), to the value it read.
//
// Which of the values a load may read it returns is a scheduling choice
// (explore_env offers one candidate per value). Stores never pass loads
// here (no load buffering: that needs promises), and a CPU's own buffered
// stores are forwarded (sim/explore/store_buffers.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace futexsim::sim::explore {

class load_views {
public:
    explicit load_views(unsigned cpus)
        : floor_(cpus, 0), read_view_(cpus, 0), last_read_(cpus, 0), coherence_(cpus)
    {
    }

    // A value reached memory at `addr` (by `cpu`: its later loads see it).
    void wrote(unsigned cpu, const void* addr, unsigned size, std::uint64_t before,
               std::uint64_t after);
    // How many values a load by `cpu` may read there (1: only the newest).
    std::size_t choices(unsigned cpu, const void* addr, std::uint64_t memory) const;
    // The value of choice `j` (0 the newest), noted as read.
    std::uint64_t read(unsigned cpu, const void* addr, std::size_t j, std::uint64_t memory);

    void full(unsigned cpu) { floor_[cpu] = now_; }
    void all_full();
    void rmb(unsigned cpu);
    // An acquire, or an address dependency: later loads see at least what
    // was current when the value just read reached memory.
    void after_ordered_load(unsigned cpu);

private:
    struct version {
        std::uint64_t ts;  // when it reached memory (0: before anything here)
        std::uint64_t bits;
    };
    struct word_history {
        unsigned size = 8;
        std::vector<version> versions;
    };
    // The oldest version `cpu` may read; nullptr when `addr` has no history
    // or memory changed behind it (then only memory may be read).
    const word_history* history(const void* addr, std::uint64_t memory) const;
    std::size_t oldest(unsigned cpu, const void* addr, const word_history& h) const;

    std::uint64_t now_ = 0;
    std::unordered_map<const void*, word_history> words_;
    std::vector<std::uint64_t> floor_, read_view_, last_read_;
    std::vector<std::unordered_map<const void*, std::size_t>>
        coherence_;  // by CPU: the newest version seen
};

}  // namespace futexsim::sim::explore
