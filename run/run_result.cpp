#include "run/run_result.h"

namespace futexsim {

run_result result_header(const run_options& opt)
{
    run_result r;
    r.machine = opt.mach.name;
    r.policy = opt.policy;
    r.precheck = opt.precheck;
    r.kernel = model::kernel_version_name(opt.kernel);
    r.workload = opt.workload;
    r.threads = opt.threads;
    r.seconds = opt.seconds;
    r.seed = opt.seed;
    r.interval_ms = opt.interval_ms;
    return r;
}

}  // namespace futexsim
