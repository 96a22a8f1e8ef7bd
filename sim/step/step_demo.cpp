#include "sim/step/step_demo.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <utility>

#include "sim/step/step_process.h"
#include "sim/trace_format.h"

namespace futexsim::sim {

namespace {

const char* state_name(step_process& p)
{
    auto* fph = p.current();
    if (!fph)
        return "no private hash";
    if (p.env.atomic_read(fph->state) == model::FR_PERCPU)
        return "FR_PERCPU";
    return p.env.atomic_read(p.mm.futex_atomic) == 0 ? "dead" : "FR_ATOMIC";
}

}  // namespace

int run_step_demo(const step_demo_options& opt, std::ostream& out)
{
    step_process p(opt.cpus);
    // The script's CPUs: 7 holds the reference, 3 runs other operations,
    // 12 drops it; a machine with fewer CPUs uses ones it has (the drop
    // still on another CPU than the get, which is the point).
    const unsigned holder = std::min(7u, opt.cpus - 1);
    const unsigned other = std::min(3u, holder - 1);
    const unsigned dropper = opt.cpus > 12 ? 12 : (holder + 1) % opt.cpus;
    int step = 0;
    auto say = [&](const std::string& what) { fmt::print(out, "{:3}  {}\n", ++step, what); };
    // A pool's clones repeat the same request; print each size once.
    unsigned last_requested = 0;
    unsigned last_parked = 0;
    p.env.on_trace = [&](const model::trace_point& tp) {
        using model::trace_kind;
        if (tp.kind == trace_kind::ref_get_percpu)
            return;
        if (tp.kind == trace_kind::hash_allocate && std::exchange(last_requested, tp.slots) == tp.slots)
            return;
        if (tp.kind == trace_kind::phash_new_park && std::exchange(last_parked, tp.slots) == tp.slots)
            return;
        fmt::print(out, "       model: {}\n", describe(tp));
    };
    auto status = [&] {
        fmt::print(out, "       state: {} hash, {}, futex_atomic={}, per-CPU sum={}\n",
                   p.get_slots(), state_name(p), p.env.atomic_read(p.mm.futex_atomic),
                   p.percpu_sum());
    };

    fmt::print(out, "Scripted pivot on {} CPUs: a pool grows to {} threads while one\n"
                    "thread holds a futex reference. Grace periods end when the script says.\n\n",
               opt.cpus, opt.threads);
    say(fmt::format("process starts: PR_FUTEX_HASH_GET_SLOTS = {}", p.get_slots()));

    say("clone() thread 1");
    p.clone_thread();
    status();

    say("grace period ends");
    p.env.end_grace_period();

    // A worker enters a futex syscall and holds its reference.
    p.env.set_cpu(holder);
    auto* held = model::futex_private_hash(&p.mm);
    say(fmt::format("CPU {}: a futex operation takes a reference and is still inside the syscall", holder));
    status();

    say(fmt::format("clone() threads 2..{}: each asks for a hash sized to the thread count",
                    opt.threads));
    unsigned last_slots = p.get_slots();
    for (unsigned t = 2; t <= opt.threads; t++)
        p.clone_thread();
    status();

    for (int gp = 0; gp < 2; gp++) {
        say("grace period ends");
        p.env.end_grace_period();
        status();
    }

    say(fmt::format("CPU {}: another futex operation: gets and puts on the shared atomic", other));
    p.env.set_cpu(other);
    if (auto* fph = model::futex_private_hash(&p.mm))
        model::futex_private_hash_put(fph);
    status();

    say(fmt::format("CPU {}: the reference taken on CPU {} is dropped here", dropper, holder));
    p.env.set_cpu(dropper);
    model::futex_private_hash_put(held);
    status();

    say(fmt::format("CPU {}: the next futex operation finds the hash dead and pivots", other));
    p.env.set_cpu(other);
    if (auto* fph = model::futex_private_hash(&p.mm))
        model::futex_private_hash_put(fph);
    status();

    const unsigned end_slots = static_cast<unsigned>(p.get_slots());
    fmt::print(out, "\nslots: {} before the pool grew, {} at the end\n", last_slots, end_slots);
    return end_slots > last_slots ? 0 : 1;
}

}  // namespace futexsim::sim
