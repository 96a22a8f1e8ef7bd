// Schedule strategies: at each scheduling point the simulator has a list of
// tasks that could run next and asks a strategy which one. The same
// strategies serve the timed engine (which queued task a CPU dispatches,
// sim/engine.cpp) and the explorer (which task takes the next step,
// sim/explore/). Everything random comes from the seed, so a run is fully
// described by (strategy, seed, depth, schedule prefix).
//
// - fifo: the first candidate, always: the engine's own order (the default,
//   byte-identical to runs before strategies existed).
// - random: uniform among the candidates.
// - pct: Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010):
//   random distinct priorities, the highest-priority candidate runs, and at
//   d - 1 random steps the task about to run drops below every other.
// - replay: the recorded choices (`schedule`), then the first candidate.
//
// Every strategy first plays the `schedule` prefix (choice i is the index
// of the candidate taken at point i, reduced modulo the number of
// candidates), then its own rule. That prefix is what rapidcheck shrinks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/rng.h"

namespace futexsim::sim {

enum class strategy_kind : std::uint8_t { fifo, random, pct, replay };

struct strategy_options {
    strategy_kind kind = strategy_kind::fifo;
    std::uint64_t seed = 1;
    unsigned pct_depth = 3;              // d: d - 1 priority change points
    std::uint64_t pct_steps = 2000;      // the step range change points are drawn from
    std::vector<unsigned> schedule;      // the prefix of choices
};

class schedule_strategy {
public:
    explicit schedule_strategy(const strategy_options& opt);

    // Index into `candidates` (task ids, in the simulator's own order) of the
    // one that runs next. `candidates` is never empty.
    std::size_t pick(const std::vector<std::uint32_t>& candidates);

    // Every choice made so far (one per point with two or more candidates).
    const std::vector<unsigned>& recorded() const { return recorded_; }
    std::uint64_t points() const { return points_; }

private:
    std::size_t pick_pct(const std::vector<std::uint32_t>& candidates);

    strategy_options opt_;
    rng64 rng_;
    std::vector<unsigned> recorded_;
    std::uint64_t points_ = 0;
    std::map<std::uint32_t, long> priority_;  // pct: by task id
    std::vector<std::uint64_t> change_points_;  // pct: sorted
    long next_low_ = 0;                          // pct: the next demoted priority
};

std::optional<strategy_kind> parse_strategy(std::string_view name);
std::string_view strategy_name(strategy_kind k);
// "1,0,3" <-> {1, 0, 3}; nullopt for text that is not such a list.
std::optional<std::vector<unsigned>> parse_schedule(std::string_view text);
std::string format_schedule(const std::vector<unsigned>& choices);

}  // namespace futexsim::sim
