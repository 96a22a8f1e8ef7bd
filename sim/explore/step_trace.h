// The step-by-step trace of an explored run (`futexsim replay`): a header,
// one line per step (who ran, on which CPU, what it did to which word, and
// the reference count's state after it, with what else happened in the
// step beneath), and the verdict.
#pragma once

#include <string>

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class step_trace final : public explore_observer {
public:
    step_trace(const run_context& ctx, const case_spec& c, const trace_sink& sink)
        : ctx_(ctx), case_(c), sink_(sink)
    {
    }

    void header() const;
    // Each tracepoint becomes a note under the step that fired it.
    void on_trace(const model::trace_point& tp) override;
    void on_step(const explore_task& t, const op_event& ev) override;
    // The warnings and the verdict.
    void at_end() override;

private:
    std::string word_name(const void* addr) const;

    const run_context& ctx_;
    const case_spec& case_;
    const trace_sink& sink_;
};

}  // namespace futexsim::sim::explore
