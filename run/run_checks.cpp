#include "run/run_checks.h"

#include <stdexcept>

namespace futexsim {

void check_run_options(const run_options& opt)
{
    if (opt.threads == 0)
        throw std::invalid_argument("--threads must be at least 1");
    if (!(opt.seconds > 0))
        throw std::invalid_argument("--seconds must be positive");
    require_pivot_policy(opt.policy);
}

}  // namespace futexsim
