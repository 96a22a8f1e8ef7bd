// The explorer's store buffers (docs/testing.md, "Weak memory"): under
// `tso` and `arm64` a store a CPU makes waits in that CPU's buffer, where
// the CPU's own loads see it (store forwarding) and no other CPU does,
// until it drains to memory. When an entry drains is a scheduling choice
// (explore_env::run() offers drain_candidate()s beside the tasks), so an
// exhaustive search explores every order the memory model allows:
//
// - tso (x86-TSO, Owens, Sarkar and Sewell 2009): one FIFO per CPU; only
//   the oldest entry may drain.
// - arm64: an entry may drain before older ones unless one of them writes
//   the same word (coherence), it is a release store (everything older
//   first), or an smp_wmb() fence lies between them. That is the store
//   side of the arm64 model; its loads are performed in program order
//   (docs/testing.md says what that leaves out).
//
// A relaxed read-modify-write (atomic_inc() on arm64, a per-CPU add) waits
// here as an `add`: the delta is applied to memory when it drains, so no
// other CPU's update is lost and none is seen early.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/explore/memory_model.h"

namespace futexsim::sim::explore {

struct buffered_store {
    enum class kind : std::uint8_t { store, add, fence };
    kind what = kind::store;
    bool release = false;    // smp_store_release(): drains after every older entry
    void* addr = nullptr;    // the word's value in memory
    unsigned size = 0;       // 4 or 8 bytes
    std::uint64_t bits = 0;  // store: the value; add: the delta (two's complement)
    int task = -1;           // the task that stored it, for the trace
    // How the explorer's footprints name the word (explore_env::record_access()).
    const void* obj = nullptr;
    std::uint32_t sub = 0;
};

class store_buffers {
public:
    store_buffers(memory_model m, unsigned cpus) : model_(m), buffers_(cpus) {}

    memory_model model() const { return model_; }
    // Whether stores wait in buffers at all (not under sc).
    bool weak() const { return model_ != memory_model::sc; }

    void store(unsigned cpu, const buffered_store& e) { buffers_[cpu].push_back(e); }
    // smp_wmb(): stores before it drain before stores after it (arm64; x86
    // keeps its stores in order anyway).
    void fence(unsigned cpu);

    // A load by `cpu` of the word at `addr` sees the youngest entry for it
    // in the CPU's own buffer: a store's value (forwarded), or an add,
    // whose sum only memory knows (the load waits until it drained).
    enum class forwarded : std::uint8_t { none, value, add_pending };
    forwarded forward(unsigned cpu, const void* addr, unsigned size, std::uint64_t& bits) const;
    // Whether `cpu`'s buffer holds an entry for `addr` (any entry: nullptr).
    bool holds(unsigned cpu, const void* addr) const;

    // The value the word at `addr` holds once every buffer has drained,
    // CPU by CPU (an add's delta counts whatever the order): what the
    // invariants' ghost counts are compared with.
    std::uint64_t settled(const void* addr, unsigned size, std::uint64_t memory) const;

    bool empty(unsigned cpu) const { return buffers_[cpu].empty(); }
    bool all_empty() const;
    std::size_t size(unsigned cpu) const { return buffers_[cpu].size(); }
    const buffered_store& entry(unsigned cpu, std::size_t i) const { return buffers_[cpu][i]; }

    // The whole buffer reaches memory at once (a grace period's end when
    // time is counted in steps; elsewhere a barrier waits for the drains).
    void drain_all(unsigned cpu);
    // The entries a CPU may drain next, each (cpu, index), CPU by CPU.
    std::vector<std::pair<unsigned, std::size_t>> drainable() const;
    // Whether entry `i` of `cpu`'s buffer may drain before the ones older.
    bool may_drain(unsigned cpu, std::size_t i) const;
    void drain_one(unsigned cpu, std::size_t i);

    // Told of each entry once it reached memory, with the bits it replaced
    // (the explorer records it).
    template <class F>
    void on_commit(F f)
    {
        on_commit_ = std::move(f);
    }

private:
    void commit(unsigned cpu, const buffered_store& e);
    static void write(const buffered_store& e);
    void drop_leading_fences(unsigned cpu);

    memory_model model_;
    std::function<void(unsigned, const buffered_store&, std::uint64_t)> on_commit_;
    std::vector<std::vector<buffered_store>> buffers_;
};

}  // namespace futexsim::sim::explore
