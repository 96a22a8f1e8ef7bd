// The dependence relation of the reduction (sim/explore/footprint.h): two
// steps commute unless one is global, both are the same task's, or one
// writes an object (with its sub-index) that the other touches.
#include <catch2/catch.hpp>

#include "sim/explore/footprint.h"

using namespace futexsim::sim::explore;

namespace {

const std::uint64_t word0 = obj_id(obj_class::word, 0, 0);
const std::uint64_t word1 = obj_id(obj_class::word, 1, 0);
const std::uint64_t counter = obj_id(obj_class::percpu, 0, 0);

step_footprint step(int task, std::vector<step_access> accesses, bool global = false)
{
    return step_footprint{task, global, std::move(accesses)};
}

}  // namespace

TEST_CASE("steps of two tasks on different objects commute", "[explore]")
{
    CHECK_FALSE(dependent(step(1, {{word0, 0, true}}), step(2, {{word1, 0, true}})));
}

TEST_CASE("two reads of one object commute", "[explore]")
{
    CHECK_FALSE(dependent(step(1, {{word0, 0, false}}), step(2, {{word0, 0, false}})));
}

TEST_CASE("a write conflicts with a read or a write of the same object, either way round",
          "[explore]")
{
    const auto write = step(1, {{word0, 0, true}});
    const auto read = step(2, {{word0, 0, false}});
    CHECK(dependent(write, read));
    CHECK(dependent(read, write));
    CHECK(dependent(write, step(2, {{word0, 0, true}})));
}

TEST_CASE("per-CPU counters of different CPUs are different objects", "[explore]")
{
    CHECK_FALSE(dependent(step(1, {{counter, 0, true}}), step(2, {{counter, 1, true}})));
    CHECK(dependent(step(1, {{counter, 1, true}}), step(2, {{counter, 1, false}})));
}

TEST_CASE("a global step or two steps of one task never commute", "[explore]")
{
    CHECK(dependent(step(1, {}, true), step(2, {})));
    CHECK(dependent(step(1, {}), step(2, {}, true)));
    CHECK(dependent(step(1, {{word0, 0, false}}), step(1, {{word1, 0, false}})));
}

TEST_CASE("an object name keeps its class, index and offset apart", "[explore]")
{
    CHECK(obj_class_of(obj_id(obj_class::fph_queues, 3, 64)) == obj_class::fph_queues);
    CHECK(obj_id(obj_class::fph, 0, 8) != obj_id(obj_class::fph, 1, 8));
    CHECK(obj_id(obj_class::fph, 0, 8) != obj_id(obj_class::fph, 0, 16));
    CHECK(obj_class_of(reinterpret_cast<std::uintptr_t>(&word0)) == obj_class::raw);
}
