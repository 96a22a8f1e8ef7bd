// Which fixed-width interval of a clock a time falls in, for counters that
// bin every operation (the throughput bins, the atomic-share bins). It keeps
// the last bin it found: nearly every operation lands in the one before it,
// and a 64-bit division per operation cost about 5% of a healthy run.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace futexsim {

// The bins of `interval_ms` a run of `seconds` has: as many as fit when its
// length is a whole number of them (to a part in 10^9, so that 0.3 s in
// bins of 10 ms is 30 bins), else one more, shorter, at the end.
inline std::size_t run_bins(double seconds, double interval_ms)
{
    const double x = seconds * 1e3 / interval_ms;
    const double whole = std::round(x);
    return static_cast<std::size_t>(std::abs(x - whole) <= 1e-9 * std::max(1.0, x) ? whole
                                                                                   : std::ceil(x));
}

// The width in milliseconds of the last of `bins` bins of a run of
// `seconds`: `interval_ms`, or less when the run ends inside it.
inline double last_bin_ms(std::size_t bins, double seconds, double interval_ms)
{
    const double w = seconds * 1e3 - static_cast<double>(bins - 1) * interval_ms;
    return bins == 0 || !(w > 0) || w >= interval_ms * (1 - 1e-9) ? interval_ms : w;
}

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
