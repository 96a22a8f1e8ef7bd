// rc::state: the prctl(PR_FUTEX_HASH) / futex_hash_allocate() API against a
// simple model of what GET_SLOTS and SET_SLOTS must return, over random
// sequences of SET_SLOTS (valid and not), GET_SLOTS and thread creation, on
// the step environment. Time passes between commands (grace periods end and
// a futex operation runs) so that a pivot clone() asked for completes, as
// it would in a process that goes on using futexes.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <bit>

#include "sim/step/step_process.h"
#include "tests/properties/property_support.h"

using futexsim::sim::step_process;
namespace model = futexsim::model;

namespace {

constexpr unsigned cpus = 8;

struct hash_model {
    int slots = 0;          // what GET_SLOTS returns
    bool custom = false;    // set by SET_SLOTS
    bool global = false;    // SET_SLOTS(0): the global hash, for good
    unsigned threads = 1;
};

struct sut {
    step_process p{cpus};
    explicit sut(model::kernel_version kernel)
    {
        p.mm.futex_kernel = kernel;
        // A blocked SET_SLOTS lets grace periods pass: a quiet process needs nothing else.
        p.env.on_block([this] {
            if (p.env.pending_callbacks() == 0)
                return false;
            p.env.end_grace_period();
            return true;
        });
    }
    // Grace periods, then one futex operation: a parked pivot completes.
    void settle()
    {
        for (int i = 0; i < 4 && p.env.pending_callbacks(); i++)
            p.env.end_grace_period();
        if (auto* fph = model::futex_private_hash(&p.mm))
            model::futex_private_hash_put(fph);
    }
};

using command = rc::state::Command<hash_model, sut>;

struct set_slots : command {
    unsigned n = *rc::gen::element(0u, 1u, 2u, 3u, 4u, 16u, 24u, 32u, 64u, 128u, 1024u);
    void apply(hash_model& m) const override
    {
        if (n == 1 || (n && !std::has_single_bit(n)) || m.global)
            return;
        m.custom = true;
        m.global = n == 0;
        m.slots = static_cast<int>(n);
    }
    void run(const hash_model& m, sut& s) const override
    {
        int want = 0;
        if (n == 1 || (n && !std::has_single_bit(n)))
            want = -model::EINVAL_;
        else if (m.global)
            want = -model::EBUSY_;
        RC_ASSERT(s.p.set_slots(n) == want);
        // SET_SLOTS returns only after its hash is installed.
        RC_ASSERT(s.p.get_slots() == nextState(m).slots);
    }
    void show(std::ostream& os) const override { os << "SET_SLOTS(" << n << ")"; }
};

struct get_slots : command {
    void run(const hash_model& m, sut& s) const override { RC_ASSERT(s.p.get_slots() == m.slots); }
    void show(std::ostream& os) const override { os << "GET_SLOTS"; }
};

// clone(): the default hash is sized for min(threads, CPUs) * 4 slots,
// 16 at least, unless a custom hash (or the global hash) was chosen.
struct clone_thread : command {
    void apply(hash_model& m) const override
    {
        if (!m.custom) {
            const unsigned want = std::max(16u, std::bit_ceil(4 * std::min(m.threads, cpus)));
            m.slots = std::max(m.slots, static_cast<int>(want));
        }
        m.threads++;
    }
    void run(const hash_model& m, sut& s) const override
    {
        RC_ASSERT(s.p.clone_thread() == 0);
        s.settle();
        RC_ASSERT(s.p.get_slots() == nextState(m).slots);
    }
    void show(std::ostream& os) const override { os << "clone"; }
};

}  // namespace

TEST_CASE("prctl(PR_FUTEX_HASH) and clone() match a model of GET/SET_SLOTS (rc::state)", "[property]")
{
    for (auto kernel : {model::kernel_version::v6_17, model::kernel_version::v7_2, model::kernel_version::v7_2_1}) {
        const auto name = std::string("prctl state machine, ") + std::string(model::kernel_version_name(kernel));
        const auto out = futexsim::props::check_property(name, 300, 31, [kernel] {
            hash_model initial;
            sut s(kernel);
            rc::state::check(initial, s, rc::state::gen::execOneOfWithArgs<set_slots, get_slots, clone_thread>());
        });
        INFO(name << ": " << out.report);
        CHECK(out.passed);
    }
}
