// The footprint recorder (for the reduction of sim/explore/dfs.h): after
// each step it names what the step touched that the explorer could not name
// itself (sim/explore/footprint.h): the mm by offset, the futex words, each
// hash in the order the process first showed it, the global hash's buckets,
// the policy's words. A step that touched anything else, or changed a field
// of the mm no recorded write explains, commutes with nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class footprint_recorder final : public explore_observer {
public:
    explicit footprint_recorder(const run_context& ctx);

    void on_step(const explore_task&, const op_event&) override;

private:
    std::optional<std::uint64_t> object_name(std::uint64_t raw) const;

    const run_context& ctx_;
    std::vector<unsigned char> mm_bytes_;       // the mm after the last step
    std::vector<const explored_hash*> hashes_;  // every hash seen, in order
};

}  // namespace futexsim::sim::explore
