// Which fixed-width interval of a clock a time falls in, for counters that
// bin every operation (the throughput bins, the atomic-share bins). It keeps
// the last bin it found: nearly every operation lands in the one before it,
// and a 64-bit division per operation cost about 5% of a healthy run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace futexsim {

class bin_cursor {
public:
    // The bin of `at` for bins of `interval` from 0 (`at` >= 0).
    std::size_t find(std::int64_t at, std::int64_t interval)
    {
        if (at < from_ || at >= to_) {
            bin_ = static_cast<std::size_t>(at / interval);
            from_ = static_cast<std::int64_t>(bin_) * interval;
            to_ = from_ + interval;
        }
        return bin_;
    }

private:
    std::size_t bin_ = 0;
    std::int64_t from_ = 0, to_ = 0;  // the span of bin_; empty before the first find()
};

}  // namespace futexsim
