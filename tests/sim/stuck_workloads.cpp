#include "tests/sim/stuck_workloads.h"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <stdexcept>

#include "run/workloads/registry.h"
#include "sim/timed/process.h"

namespace futexsim::testing {

namespace {

sim::sim_process& simulated(workload_context& ctx)
{
    auto* p = dynamic_cast<sim::sim_process*>(&ctx.proc);
    if (!p)
        throw std::invalid_argument("test-stuck-spinlock runs on the simulator only");
    return *p;
}

workload_def stuck_spinlock()
{
    workload_def w;
    w.name = "test-stuck-spinlock";
    w.description = "test only: one thread holds a spinlock for good, another spins on it";
    w.main = [](workload_context& ctx) {
        sim::sim_process& p = simulated(ctx);
        auto lock = std::make_shared<sim::sim_env::spinlock_t>();
        p.spawn_thread("holder", ctx.cpus, [&p, lock] {
            p.eng().set_mode(sim::task_mode::kernel);
            p.env().spin_lock(*lock);
            for (;;)  // in the kernel with preemption off, for good
                p.eng().charge(1000);
        });
        for (unsigned i = 1; i < ctx.opt.threads; i++)
            p.spawn_thread(i == 1 ? std::string("spinner") : fmt::format("spinner/{}", i), ctx.cpus, [&p, lock] {
                p.sys_nanosleep(100'000);  // the holder has it by then
                p.eng().set_mode(sim::task_mode::kernel);
                p.env().spin_lock(*lock);
            });
        p.sys_nanosleep(1'000'000);
        p.rcu().call_rcu(p.eng().cpu(), [] {});
    };
    return w;
}

}  // namespace

void register_stuck_workloads()
{
    static const bool registered = [] {
        register_workload(stuck_spinlock());
        return true;
    }();
    (void)registered;
}

}  // namespace futexsim::testing
