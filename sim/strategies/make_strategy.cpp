#include "sim/strategies/strategies.h"

namespace futexsim::sim {

std::unique_ptr<schedule_strategy> make_strategy(const strategy_options& opt)
{
    switch (opt.kind) {
    case strategy_kind::fifo: return make_fifo_strategy(opt);
    case strategy_kind::random: return make_random_strategy(opt);
    case strategy_kind::pct: return make_pct_strategy(opt);
    case strategy_kind::replay: return make_replay_strategy(opt);
    }
    return make_fifo_strategy(opt);
}

}  // namespace futexsim::sim
