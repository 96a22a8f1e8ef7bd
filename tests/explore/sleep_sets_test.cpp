// Sleep-set pruning in the DFS tree (sim/explore/dfs_strategy.h), on a
// hand-made pair of steps: two tasks, one step each. Once the order
// "1 then 2" is explored, the order "2 then 1" is pruned when the two steps
// commute and explored when they do not.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sim/explore/dfs_strategy.h"

using namespace futexsim::sim;
using namespace futexsim::sim::explore;

namespace {

const std::vector<bool> no_timers(2, false);

// One step of task `task` that writes word `w`.
step_footprint writes(int task, unsigned w)
{
    return step_footprint{task, false, {{obj_id(obj_class::word, w, 0), 0, true}}};
}

struct outcome {
    unsigned complete = 0;
    unsigned pruned = 0;
};

// Every run of two one-step tasks the tree asks for: task 1's step writes
// word `word_of_1`, task 2's `word_of_2`.
outcome search(unsigned word_of_1, unsigned word_of_2, bool reduction = true)
{
    dfs_tree tree(unbounded_preemptions, reduction);
    outcome out;
    do {
        tree.begin_run();
        std::vector<step_footprint> steps;
        std::vector<std::uint32_t> left = {1, 2};
        bool stopped = false;
        while (!left.empty()) {
            const std::optional<std::size_t> pick =
                tree.choose(left, std::vector<bool>(left.size(), false), steps);
            if (!pick) {
                stopped = true;
                break;
            }
            const std::uint32_t task = left[*pick];
            steps.push_back(writes(static_cast<int>(task), task == 1 ? word_of_1 : word_of_2));
            left.erase(left.begin() + static_cast<std::ptrdiff_t>(*pick));
        }
        tree.run_ended(steps);
        ++(stopped ? out.pruned : out.complete);
    } while (tree.backtrack());
    return out;
}

}  // namespace

TEST_CASE("sleep sets prune the second order of two steps that commute", "[explore]")
{
    const outcome o = search(0, 1);
    CHECK(o.complete == 1);
    CHECK(o.pruned == 1);
}

TEST_CASE("sleep sets explore both orders of two steps that conflict", "[explore]")
{
    const outcome o = search(0, 0);
    CHECK(o.complete == 2);
    CHECK(o.pruned == 0);
}

TEST_CASE("without the reduction both orders run even when the steps commute", "[explore]")
{
    const outcome o = search(0, 1, false);
    CHECK(o.complete == 2);
    CHECK(o.pruned == 0);
}

TEST_CASE("a replayed prefix that offers other candidates is refused: the run is not deterministic",
          "[explore]")
{
    dfs_tree tree(unbounded_preemptions, true);
    tree.begin_run();
    REQUIRE(tree.choose({1, 2}, no_timers, {}));
    tree.run_ended({writes(1, 0)});
    REQUIRE(tree.backtrack());
    tree.begin_run();
    CHECK_THROWS_AS(tree.choose({1, 3}, no_timers, {}), std::logic_error);
}
