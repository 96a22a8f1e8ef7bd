// The use-after-free quarantine (sim/explore/quarantine.h): what the model
// frees stays allocated and marked until the explorer goes, so that a
// later access to it can be told apart from an access to live memory.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "sim/explore/quarantine.h"

using namespace futexsim::sim::explore;

namespace {

struct freed_object {
    bool* deleted;
    long payload[4] = {};
    ~freed_object() { *deleted = true; }
};

// Like a private hash: its bucket array is its own allocation.
struct freed_hash {
    std::vector<long> queues = std::vector<long>(8);
};

}  // namespace

TEST_CASE("quarantined memory is held, byte by byte, and nothing past it", "[explore]")
{
    quarantine q;
    bool deleted = false;
    auto* p = new freed_object{&deleted};
    const long live = 0;
    q.keep(p);
    CHECK(q.holds(p));
    CHECK(q.holds(&p->payload[3]));
    CHECK_FALSE(q.holds(reinterpret_cast<const char*>(p) + sizeof(freed_object)));
    CHECK_FALSE(q.holds(&live));
    CHECK_FALSE(deleted);  // kept, not freed: no later allocation can reuse it
}

TEST_CASE("a quarantined hash's bucket array is held too", "[explore]")
{
    quarantine q;
    auto* h = new freed_hash;
    q.keep(h);
    CHECK(q.holds(h->queues.data()));
    CHECK(q.holds(&h->queues.back()));
}

TEST_CASE("release deletes what was kept and holds nothing after", "[explore]")
{
    bool deleted = false;
    std::uintptr_t address = 0;
    {
        quarantine q;
        auto* p = new freed_object{&deleted};
        address = reinterpret_cast<std::uintptr_t>(p);
        q.keep(p);
        q.release();
        CHECK(deleted);
        CHECK_FALSE(q.holds(reinterpret_cast<const void*>(address)));
    }
    bool deleted_at_end = false;
    {
        quarantine q;
        q.keep(new freed_object{&deleted_at_end});
    }
    CHECK(deleted_at_end);  // the quarantine's end releases it
}
