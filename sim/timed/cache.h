// Cache lines: who holds each line, what an access costs, and the queue of
// CPUs waiting for a contended line. Contention (and its collapse) comes out
// of this: every access that needs the line to move waits its turn and pays
// the transfer latency between the CPUs involved. The cache is an event
// source of the engine (sim/timed/event_source.h): a miss posts its request, and
// the line serves its queue in events of its own.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/timed/engine.h"

namespace futexsim::sim {

// The CPUs holding a line shared: O(1) membership, iteration over members.
class sharer_set {
public:
    [[gnu::always_inline]] bool contains(unsigned cpu) const
    {
        const std::size_t w = cpu / 64;
        return w < bits_.size() && (bits_[w] >> (cpu % 64) & 1u);
    }
    void add(unsigned cpu)
    {
        const std::size_t w = cpu / 64;
        if (w >= bits_.size())
            bits_.resize(w + 1, 0);
        if (bits_[w] >> (cpu % 64) & 1u)
            return;
        bits_[w] |= std::uint64_t{1} << (cpu % 64);
        members_.push_back(static_cast<std::uint16_t>(cpu));
    }
    void clear()
    {
        for (auto c : members_)
            bits_[c / 64] &= ~(std::uint64_t{1} << (c % 64));
        members_.clear();
    }
    bool empty() const { return members_.empty(); }
    auto begin() const { return members_.begin(); }
    auto end() const { return members_.end(); }

private:
    std::vector<std::uint64_t> bits_;
    std::vector<std::uint16_t> members_;
};

struct cache_line {
    std::uint32_t id = 0;
    int owner = -1;                      // CPU holding it exclusively (M/E); -1 if none
    bool dirty = false;                  // the owner has written it (M, not E)
    sharer_set sharers;                  // CPUs holding it shared (S), owner excluded
    unsigned home_cpu = 0;               // a CPU on the home node (memory side)
    vtime busy_until = 0;                // the line is in flight (or held) until then
    vtime held_from = 0;                 // the owner holds it after a locked op,
    vtime held_until = 0;                // from data arrival to held_until
    bool service_scheduled = false;
    bool snoop_arrived = false;          // the holder has seen the next request's snoop
    vtime leg = 0;                       // that snoop's travel time
    std::deque<std::uint32_t> waiters;   // tasks whose access is queued
    std::vector<std::uint32_t> spinners; // tasks spinning until the line is written
    std::uint64_t accesses = 0;
    std::uint64_t transfers = 0;
};

struct cache_stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t squashed = 0;  // requests reissued after a tick's interrupt
};

class cache_model final : public event_source {
public:
    explicit cache_model(engine& e);
    const char* name() const override { return "cache-line services"; }

    // The line a word at `addr` lives on (64-byte lines, host layout, so the
    // model's alignas(64) decisions carry over).
    cache_line& line_for(const void* addr);
    cache_line& line_by_id(std::uint32_t id) { return lines_[id]; }

    // Whether `cpu` may do this access without any coherence traffic.
    // Inline (with local_write()): the model's every access asks.
    bool hit(const cache_line& l, unsigned cpu, bool is_write) const
    {
        return held_by(l, cpu) ||
               (l.waiters.empty() && l.busy_until <= eng_.now() && quiet_hit(l, cpu, is_write));
    }

    // hit() on a line with no waiters and nothing in flight (the caller has
    // checked): whose copy it is decides, and a held window is the owner's
    // anyway.
    [[gnu::always_inline]] static bool quiet_hit(const cache_line& l, unsigned cpu, bool is_write)
    {
        if (l.owner == static_cast<int>(cpu))
            return true;
        return !is_write && l.owner < 0 && l.sharers.contains(cpu);
    }

    // A local access: updates the holder state; the caller charges the time.
    void local_write(cache_line& l, unsigned cpu)
    {
        l.owner = static_cast<int>(cpu);
        l.dirty = true;
        l.sharers.clear();
        ++l.accesses;
        if (!l.spinners.empty())
            release_spinners(l, eng_.now());
    }

    // Queue the current task's access; `fn(ctx)` runs at service time. Returns
    // after the task has been served and its data has arrived.
    void access(cache_line& l, bool is_write, void (*fn)(void*), void* ctx);

    // A spinlock's spin on `l`: the current task spins until the next write
    // to the line (engine::spin_prepare() and spin_wait() around it).
    void spin_prepare(cache_line& l);
    void spin_cancel(cache_line& l);

    // event_source: a queued request arrives, or the line is free to serve
    // its next waiter.
    void on_event(std::uint8_t what, std::uint32_t arg) override;
    // The tick's interrupt on a CPU whose task waits in a line's queue: the
    // stalled instruction is squashed and reissued after the handler
    // (tick_irq_ns), at the back of the queue.
    void tick_sample(unsigned cpu, vtime at, const task* t) override;

    const cache_stats& stats() const { return stats_; }
    cache_stats& stats() { return stats_; }

private:
    enum event_kind : std::uint8_t { request, line_free };
    // An access waiting for service, by task id: run at service time, on
    // the engine's stack.
    struct pending_access {
        cache_line* line = nullptr;
        void (*fn)(void*) = nullptr;
        void* ctx = nullptr;
        bool is_write = false;
    };
    void serve(cache_line& l);
    void schedule_line_free(cache_line& l, vtime at);
    // The line was written at `at`: its spinners re-read it.
    void release_spinners(cache_line& l, vtime at);
    bool held_by(const cache_line& l, unsigned cpu) const
    {
        const vtime now = eng_.now();
        return l.owner == static_cast<int>(cpu) && now >= l.held_from && now < l.held_until;
    }
    double source_latency(const cache_line& l, unsigned cpu, bool is_write) const;
    std::size_t pick_waiter(const cache_line& l) const;

    engine& eng_;
    std::uint8_t source_;
    line_arbitration arb_;
    std::vector<pending_access> pending_;
    std::unordered_map<std::uintptr_t, std::uint32_t> by_addr_;
    std::deque<cache_line> lines_;
    cache_stats stats_;
};

}  // namespace futexsim::sim
