// Schedule strategies: at each scheduling point the simulator has a list of
// tasks that could run next and asks a strategy which one. The same
// strategies serve the timed engine (which queued task a CPU dispatches,
// sim/timed/engine.cpp) and the explorer (which task takes the next step,
// sim/explore/). Everything random comes from the strategy's seed, so a run
// is fully described by (strategy, seed, depth, schedule prefix).
//
// One file per strategy, in sim/strategies/:
// - fifo: the first candidate, always: the engine's own order (the default;
//   a run under it is byte-identical to one with no strategy set).
// - random: uniform among the candidates.
// - pct: Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010):
//   random distinct priorities, the highest-priority candidate runs, and at
//   d - 1 random steps the task about to run drops below every other.
// - replay: the recorded choices (`schedule`), then the first candidate.
// - dfs (the explorer's only, sim/explore/dfs_strategy.h): every schedule
//   within bounds, one run after another, each run's strategy replaying the
//   path to the point being explored; it decides every point, even one
//   with a single candidate, and may end a run (pick_or_stop()).
//
// Every strategy first plays the `schedule` prefix (choice i is the index
// of the candidate taken at point i, reduced modulo the number of
// candidates), then its own rule. That prefix is what rapidcheck shrinks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace futexsim::sim {

enum class strategy_kind : std::uint8_t { fifo, random, pct, replay };

struct strategy_options {
    strategy_kind kind = strategy_kind::fifo;
    // The strategy's own stream. The timed simulator derives it from the
    // run's seed (stream "schedule", sim/rng.h); the explorer, whose only
    // random consumer is the strategy, takes its --seed as it is.
    std::uint64_t seed = 1;
    unsigned pct_depth = 3;              // d: d - 1 priority change points
    std::uint64_t pct_steps = 2000;      // the step range change points are drawn from
    std::vector<unsigned> schedule;      // the prefix of choices
};

// The interface every strategy implements. pick() plays the prefix and
// records every choice; a strategy supplies only its own rule, choose().
class schedule_strategy {
public:
    explicit schedule_strategy(std::vector<unsigned> prefix) : prefix_(std::move(prefix)) {}
    virtual ~schedule_strategy() = default;
    schedule_strategy(const schedule_strategy&) = delete;
    schedule_strategy& operator=(const schedule_strategy&) = delete;

    // Index into `candidates` (task ids, in the simulator's own order) of the
    // one that runs next. `candidates` is never empty.
    std::size_t pick(const std::vector<std::uint32_t>& candidates);
    // What the explorer asks instead (sim/explore/explore_env.h): asked at
    // every point, even one with a single candidate; nullopt ends the run
    // there. Only a strategy that searches many runs and prunes those it
    // has explored already (dfs) overrides it; every other one pick()s.
    virtual std::optional<std::size_t> pick_or_stop(const std::vector<std::uint32_t>& candidates)
    {
        return pick(candidates);
    }

    // Every choice made so far (one per point with two or more candidates).
    const std::vector<unsigned>& recorded() const { return recorded_; }
    std::uint64_t points() const { return points_; }

protected:
    // The strategy's rule at point `point` (numbered from 0), past the
    // prefix; `candidates` has two or more entries.
    virtual std::size_t choose(const std::vector<std::uint32_t>& candidates, std::uint64_t point) = 0;
    // A choice an overriding pick_or_stop() made at a point with two or
    // more candidates, recorded as pick() records its own.
    void record(std::size_t choice) { recorded_.push_back(static_cast<unsigned>(choice)); }

private:
    std::vector<unsigned> prefix_;
    std::vector<unsigned> recorded_;
    std::uint64_t points_ = 0;
};

// The strategy `opt.kind` names (sim/strategies/).
std::unique_ptr<schedule_strategy> make_strategy(const strategy_options& opt);

std::optional<strategy_kind> parse_strategy(std::string_view name);
std::string_view strategy_name(strategy_kind k);
// "1,0,3" <-> {1, 0, 3}; nullopt for text that is not such a list.
std::optional<std::vector<unsigned>> parse_schedule(std::string_view text);
std::string format_schedule(const std::vector<unsigned>& choices);

}  // namespace futexsim::sim
