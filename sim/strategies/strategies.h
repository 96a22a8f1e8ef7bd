// The schedule strategies, one file each (sim/schedule.h says what each
// does); make_strategy() in make_strategy.cpp is the only caller.
#pragma once

#include <memory>

#include "sim/schedule.h"

namespace futexsim::sim {

std::unique_ptr<schedule_strategy> make_fifo_strategy(const strategy_options& opt);
std::unique_ptr<schedule_strategy> make_random_strategy(const strategy_options& opt);
std::unique_ptr<schedule_strategy> make_pct_strategy(const strategy_options& opt);
std::unique_ptr<schedule_strategy> make_replay_strategy(const strategy_options& opt);

}  // namespace futexsim::sim
