// random: uniform among the candidates, from the strategy's own stream.
#include "sim/rng.h"
#include "sim/strategies/strategies.h"

namespace futexsim::sim {

namespace {

class random_strategy final : public schedule_strategy {
public:
    explicit random_strategy(const strategy_options& opt) : schedule_strategy(opt.schedule), rng_(opt.seed) {}

private:
    std::size_t choose(const std::vector<std::uint32_t>& candidates, std::uint64_t) override
    {
        return rng_.below(candidates.size());
    }
    rng64 rng_;
};

}  // namespace

std::unique_ptr<schedule_strategy> make_random_strategy(const strategy_options& opt)
{
    return std::make_unique<random_strategy>(opt);
}

}  // namespace futexsim::sim
