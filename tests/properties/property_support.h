// What the property tests share: the case generators, the budget (scaled by
// FUTEXSIM_PROPERTY_SCALE), and a check that runs a property with a fixed
// seed and keeps the shrunk counterexample.
#pragma once

#include <rapidcheck.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/explore/explore_run.h"

namespace futexsim::props {

using sim::explore::liveness;
using sim::explore::run_config;
using sim::explore::case_spec;
using sim::explore::case_op;
using sim::explore::case_thread;

// One generated run: the case and everything that decides its schedule.
struct explored {
    run_config cfg;
    case_spec c;
};

inline void showValue(const explored& e, std::ostream& os)
{
    os << sim::explore::replay_command(e.cfg, e.c);
}

// FUTEXSIM_PROPERTY_SCALE multiplies every property's number of cases
// (default 1: the CI budget; 10 or 100 for long local runs).
inline int scaled(int cases)
{
    const char* s = std::getenv("FUTEXSIM_PROPERTY_SCALE");
    const double k = s ? std::atof(s) : 1.0;
    return std::max(1, static_cast<int>(cases * (k > 0 ? k : 1.0)));
}

struct check_outcome {
    bool passed = true;
    std::string report;                 // rapidcheck's message
    std::optional<explored> shrunk;     // the last failing case: the shrunk one
};

// The last failing case a property saw; rapidcheck evaluates the shrunk
// counterexample last.
inline std::optional<explored>& last_failure()
{
    static std::optional<explored> f;
    return f;
}

// Runs `prop` over `cases` generated cases (scaled) with a fixed seed, so
// the suite is deterministic; RC_PARAMS is not consulted.
template <class Prop>
check_outcome check_property(const std::string& name, int cases, std::uint64_t seed, Prop&& prop)
{
    last_failure().reset();
    rc::detail::TestMetadata meta;
    meta.id = name;
    meta.description = name;
    rc::detail::TestParams params;
    params.seed = seed;
    params.maxSuccess = scaled(cases);
    params.maxSize = 100;
    const auto result = rc::detail::checkTestable(std::forward<Prop>(prop), meta, params);
    check_outcome out;
    out.passed = result.template is<rc::detail::SuccessResult>();
    std::ostringstream ss;
    rc::detail::printResultMessage(result, ss);
    out.report = ss.str();
    out.shrunk = last_failure();
    return out;
}

// Runs the explorer on a generated case; a violation fails the property
// with the one command that replays it.
// FUTEXSIM_PROPERTY_MEMORY=tso or arm64 runs every property's cases under
// that memory model (docs/testing.md, "Weak memory"); default sc.
inline sim::explore::memory_model property_memory()
{
    const char* m = std::getenv("FUTEXSIM_PROPERTY_MEMORY");
    if (!m)
        return sim::explore::memory_model::sc;
    const auto parsed = sim::explore::parse_memory_model(m);
    if (!parsed) {
        std::cerr << "FUTEXSIM_PROPERTY_MEMORY='" << m << "': expected sc, tso or arm64" << std::endl;
        std::exit(2);
    }
    return *parsed;
}

inline void explore_or_fail(const explored& generated, const std::string& program = "futexsim")
{
    explored e = generated;
    e.cfg.memory = property_memory();
    if (std::getenv("FUTEXSIM_PROPERTY_ECHO"))  // every case's command, for a case that hangs
        std::cerr << sim::explore::replay_command(e.cfg, e.c, program) << std::endl;
    const auto out = sim::explore::explore_case(e.cfg, e.c);
    if (out.violation) {
        last_failure() = e;
        RC_FAIL(*out.violation + "\n    replay: " + sim::explore::replay_command(e.cfg, e.c, program));
    }
}

// --- generators -------------------------------------------------------------

inline rc::Gen<unsigned> gen_word() { return rc::gen::inRange(0u, 2u); }

// One operation of a thread (no thread creation: the main thread makes those).
inline rc::Gen<case_op> gen_op()
{
    using namespace rc;
    auto op1 = [](char k) { return [k](unsigned a) { return case_op{k, a, 0, 0}; }; };
    return gen::weightedOneOf<case_op>({
        {3, gen::map(gen_word(), op1('W'))},
        {3, gen::map(gen::pair(gen_word(), gen::inRange(1u, 60u)),
                     [](auto p) { return case_op{'T', p.first, 0, p.second}; })},
        {2, gen::map(gen_word(), op1('M'))},
        {4, gen::map(gen::pair(gen_word(), gen::inRange(1u, 4u)),
                     [](auto p) { return case_op{'K', p.first, 0, p.second}; })},
        {2, gen::map(gen::pair(gen_word(), gen_word()), [](auto p) { return case_op{'O', p.first, p.second, 0}; })},
        {2, gen::map(gen::pair(gen_word(), gen::inRange(0u, 3u)),
                     [](auto p) { return case_op{'R', p.first, (p.first + 1) % 2, p.second}; })},
        {1, gen::map(gen::element(0u, 2u, 16u, 32u, 64u), [](unsigned n) { return case_op{'P', 0, 0, n}; })},
        {1, gen::just(case_op{'G', 0, 0, 0})},
        {1, gen::map(gen::inRange(1u, 40u), [](unsigned n) { return case_op{'S', 0, 0, n}; })},
    });
}

inline rc::Gen<std::vector<case_op>> gen_ops(int most)
{
    return rc::gen::mapcat(rc::gen::inRange(1, most + 1),
                           [](int n) { return rc::gen::container<std::vector<case_op>>(static_cast<std::size_t>(n), gen_op()); });
}

// The process every generator builds: the main thread creates one thread
// per entry of `workers`, then runs `main_ops`; each created thread runs its
// entry, over and over if `loop`.
inline case_spec pool_case(const std::vector<case_op>& main_ops, const std::vector<std::vector<case_op>>& workers, bool loop)
{
    case_spec c;
    case_thread main;
    main.ops.assign(workers.size(), case_op{'C', 0, 0, 0});
    main.ops.insert(main.ops.end(), main_ops.begin(), main_ops.end());
    c.threads.push_back(main);
    for (const auto& w : workers)
        c.threads.push_back(case_thread{w, loop});
    return c;
}

// The workers' operations: entries 1 .. threads-1 of `ops` (entry 0 is the
// main thread's when a generator draws one list per thread).
inline std::vector<std::vector<case_op>> workers_of(const std::vector<std::vector<case_op>>& ops, int threads)
{
    return {ops.begin() + 1, ops.begin() + threads};
}

// A process of `threads` (2-16): the main thread creates the others first,
// then does its own operations, and so does every thread.
inline rc::Gen<case_spec> gen_case(int min_threads, int max_threads, rc::Gen<std::vector<case_op>> ops)
{
    using namespace rc;
    return gen::mapcat(gen::inRange(min_threads, max_threads + 1), [=](int threads) {
        return gen::map(gen::pair(ops, gen::container<std::vector<std::vector<case_op>>>(
                                           static_cast<std::size_t>(threads - 1), ops)),
                        [](auto p) { return pool_case(p.first, p.second, false); });
    });
}

// How the run is scheduled: strategy, seed, PCT depth, and the prefix of
// choices that rapidcheck shrinks towards "always the first candidate".
inline rc::Gen<sim::strategy_options> gen_strategy(std::vector<sim::strategy_kind> kinds)
{
    using namespace rc;
    return gen::map(gen::tuple(gen::elementOf(kinds), gen::inRange<std::uint64_t>(1, 100000),
                               gen::inRange(1u, 5u), gen::container<std::vector<unsigned>>(gen::inRange(0u, 16u))),
                    [](auto t) {
                        sim::strategy_options s;
                        s.kind = std::get<0>(t);
                        s.seed = std::get<1>(t);
                        s.pct_depth = std::get<2>(t);
                        s.schedule = std::get<3>(t);
                        return s;
                    });
}

inline const std::vector<sim::strategy_kind>& all_strategies()
{
    static const std::vector<sim::strategy_kind> k{sim::strategy_kind::random, sim::strategy_kind::pct,
                                                   sim::strategy_kind::replay};
    return k;
}

// The bounded-liveness bound, in grace periods from futex_ref_drop() of the
// current hash (the pivot's request) to the installation of its replacement,
// the one definition of a pending pivot (run/pivot_stats.h). It covers the
// requester's own way from the drop to parking the new hash, which the
// random strategy may slow down (a thread sharing its CPU with one in a
// non-preemptible section is not a candidate). The fixes, the mutants and
// stock are held to the same bound.
inline constexpr unsigned long liveness_bound_gps = 10;

// Continuous load: the main thread creates 1-15 workers (the pool grows past
// what 16 slots serve on 8 CPUs, so clone() asks for a pivot) and then asks
// for 64 slots with prctl; every worker loops its `load` until the run ends.
// The liveness bound is `bound_gps` grace periods per pivot.
inline rc::Gen<explored> gen_continuous(std::string policy, rc::Gen<std::vector<case_op>> load,
                                        std::vector<sim::strategy_kind> kinds, unsigned long bound_gps,
                                        model::kernel_version kernel = model::default_kernel_version)
{
    using namespace rc;
    return gen::map(gen::tuple(gen::inRange(2, 17), gen::container<std::vector<std::vector<case_op>>>(16, load),
                               gen_strategy(std::move(kinds))),
                    [policy, bound_gps, kernel](auto t) {
                        explored e;
                        e.c = pool_case({case_op{'P', 0, 0, 64}}, workers_of(std::get<1>(t), std::get<0>(t)), true);
                        e.cfg.policy = policy;
                        e.cfg.kernel = kernel;
                        e.cfg.cpus = 8;
                        e.cfg.strategy = std::get<2>(t);
                        e.cfg.max_steps = 2500;
                        e.cfg.strategy.pct_steps = e.cfg.max_steps;
                        e.cfg.check = liveness::bounded;
                        e.cfg.pivot_bound_gps = bound_gps;
                        e.cfg.check_sleepers = false;  // a property of its own (safety_test.cpp)
                        return e;
                    });
}

}  // namespace futexsim::props
