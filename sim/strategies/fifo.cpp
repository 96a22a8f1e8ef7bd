// fifo: the first candidate, always: the simulator's own order.
#include "sim/strategies/strategies.h"

namespace futexsim::sim {

namespace {

class fifo_strategy final : public schedule_strategy {
public:
    using schedule_strategy::schedule_strategy;

private:
    std::size_t choose(const std::vector<std::uint32_t>&, std::uint64_t) override { return 0; }
};

}  // namespace

std::unique_ptr<schedule_strategy> make_fifo_strategy(const strategy_options& opt)
{
    return std::make_unique<fifo_strategy>(opt.schedule);
}

}  // namespace futexsim::sim
