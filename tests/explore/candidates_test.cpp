// The explorer's candidate set (explore_env.h): every runnable task, except
// one whose CPU another task holds in a non-preemptible section. Seen
// through a strategy that records what each point offered it.
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/explore/explore_env.h"

using namespace futexsim::sim;
using namespace futexsim::sim::explore;

namespace {

// Takes the first candidate and remembers every point's candidates.
class recording_strategy final : public schedule_strategy {
public:
    explicit recording_strategy(std::vector<std::vector<std::uint32_t>>& offers)
        : schedule_strategy({}), offers_(offers)
    {
    }
    std::optional<std::size_t> pick_or_stop(const std::vector<std::uint32_t>& candidates) override
    {
        offers_.push_back(candidates);
        return 0;
    }

protected:
    std::size_t choose(const std::vector<std::uint32_t>&, std::uint64_t) override { return 0; }

private:
    std::vector<std::vector<std::uint32_t>>& offers_;
};

explore_env::config two_cpus()
{
    explore_env::config cfg;
    cfg.cpus = 2;
    return cfg;
}

// An explorer on two CPUs whose strategy records what each point offered.
struct recorded_explorer {
    std::vector<std::vector<std::uint32_t>> offers;
    explore_env env{two_cpus()};
    recorded_explorer() { env.use_strategy(std::make_unique<recording_strategy>(offers)); }
};

bool offered(const std::vector<std::uint32_t>& offer, int task)
{
    return std::find(offer.begin(), offer.end(), static_cast<std::uint32_t>(task)) != offer.end();
}

}  // namespace

TEST_CASE("a task in a non-preemptible section keeps its CPU: the others there are not candidates",
          "[explore]")
{
    recorded_explorer x;
    explore_env& env = x.env;
    const auto& offers = x.offers;
    const int holder = env.spawn("holder", 0, [&] {
        env.preempt_disable();
        env.user_step("inside the section");
        env.preempt_enable();
        env.user_step("after it");
    });
    const int same_cpu = env.spawn("same-cpu", 0, [&] { env.user_step("ran"); });
    const int other_cpu = env.spawn("other-cpu", 1, [&] { env.user_step("ran"); });
    env.run();

    REQUIRE(offers.size() >= 3);
    // The rcu task sleeps until a callback is due: never a candidate here.
    CHECK(offers[0] == std::vector<std::uint32_t>{1, 2, 3});
    CHECK(holder == 1);
    // The holder ran first and stopped inside its section.
    CHECK_FALSE(offered(offers[1], same_cpu));
    CHECK(offered(offers[1], holder));
    CHECK(offered(offers[1], other_cpu));
    // Out of it, the CPU is shared again.
    CHECK(offered(offers[2], same_cpu));
    CHECK(std::all_of(env.tasks().begin() + 1, env.tasks().end(),
                      [](const auto& t) { return t->state == task_state::exited; }));
}

TEST_CASE("a sleeping task is a candidate again once woken", "[explore]")
{
    recorded_explorer x;
    explore_env& env = x.env;
    const auto& offers = x.offers;
    int flag = 0;
    const int sleeper =
        env.spawn("sleeper", 0, [&] { env.wait_var_event(&flag, [&] { return flag != 0; }); });
    const int waker = env.spawn("waker", 1, [&] {
        env.user_step("before the wake-up");
        flag = 1;
        env.wake_up_var(&flag);
        env.user_step("after it");
    });
    env.run();

    // The sleeper runs first, until it sleeps: then only the waker is left,
    // and the sleeper is offered again once the waker woke it.
    const auto asleep = std::find_if(offers.begin(), offers.end(),
                                     [&](const auto& offer) { return !offered(offer, sleeper); });
    REQUIRE(asleep != offers.end());
    CHECK(*asleep == std::vector<std::uint32_t>{static_cast<std::uint32_t>(waker)});
    CHECK(std::any_of(asleep + 1, offers.end(),
                      [&](const auto& offer) { return offered(offer, sleeper); }));
    CHECK(env.tasks()[static_cast<std::size_t>(sleeper)]->state == task_state::exited);
}
