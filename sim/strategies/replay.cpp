// replay: the recorded choices (the prefix), then the first candidate:
// fifo's rule after the prefix. A separate name because a run that names
// its schedule says so in its command and output.
#include "sim/strategies/strategies.h"

namespace futexsim::sim {

std::unique_ptr<schedule_strategy> make_replay_strategy(const strategy_options& opt)
{
    return make_fifo_strategy(opt);
}

}  // namespace futexsim::sim
