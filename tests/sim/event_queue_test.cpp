// The calendar queue (sim/timed/event_queue.h) pops in exactly the order of
// (time, sequence number), as the heap it replaced did: the engine's every
// run depends on it being byte-identical. Random pushes and pops against a
// sorted reference, with events near the last one popped (the ring), far
// ahead (the heap beside it), in the past, at equal times, across the ring's
// wrap-around, and a fixed timeout armed again and again (reproducer 2's
// waiters: far ahead, mostly in order, now and then a little early); what is
// left at the end is drained in order too.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>
#include <utility>

#include "sim/timed/event_queue.h"

using futexsim::sim::calendar_queue;

namespace {

struct ev {
    std::int64_t t;
    std::uint64_t seq;
};
struct ev_before {
    bool operator()(const ev& a, const ev& b) const
    {
        return a.t != b.t ? a.t < b.t : a.seq < b.seq;
    }
};

// `spread`: how far ahead of the last popped time a new event may lie;
// `past`: whether some go before it; `timeouts`: whether a third are a
// 10 ms timeout, up to 2 µs early (a task that ran ahead of the queue).
void check_against_reference(std::uint64_t seed, std::int64_t spread, bool past, bool timeouts = false)
{
    std::mt19937_64 rng(seed);
    calendar_queue<ev, ev_before> q;
    std::set<std::pair<std::int64_t, std::uint64_t>> ref;
    std::uint64_t seq = 0;
    std::int64_t now = 0;
    for (int step = 0; step < 200'000; step++) {
        const bool push = ref.empty() || rng() % 100 < 52;
        if (push) {
            std::int64_t t =
                now + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(spread));
            if (rng() % 50 == 0)
                t = now + 1'000'000 +
                    static_cast<std::int64_t>(rng() % 4'000'000);  // a tick, a timer
            if (past && rng() % 100 == 0)
                t = now - static_cast<std::int64_t>(rng() % 1000);
            if (timeouts && rng() % 3 == 0)
                t = now + 10'000'000 - static_cast<std::int64_t>(rng() % 2000);
            if (rng() % 10 == 0)
                t = now;  // ties: the order they were queued in
            q.emplace(t, seq);
            ref.emplace(t, seq);
            ++seq;
        } else {
            REQUIRE(!q.empty());
            const auto want = *ref.begin();
            ref.erase(ref.begin());
            REQUIRE(q.top().t == want.first);
            REQUIRE(q.top().seq == want.second);
            now = q.top().t;
            q.pop();
        }
        REQUIRE(q.size() == ref.size());
        REQUIRE(q.empty() == ref.empty());
    }
    // Drained to the end: what is left far ahead comes out in order too.
    for (const auto& want : ref) {
        REQUIRE(q.top().t == want.first);
        REQUIRE(q.top().seq == want.second);
        q.pop();
    }
    REQUIRE(q.empty());
}

}  // namespace

TEST_CASE("calendar queue: pops in (time, sequence) order", "[event-queue]")
{
    check_against_reference(1, 300, false);      // a latched run: everything within a few buckets
    check_against_reference(2, 100'000, false);  // wider than the ring: some go to the heap
    check_against_reference(3, 2'000, true);     // events before the last one popped
    check_against_reference(4, 70'000, true);    // about one ring: wrap-around
    check_against_reference(5, 300, false, true);  // timeouts, on top of a latched run's events
    check_against_reference(6, 5'000, true, true);
}
