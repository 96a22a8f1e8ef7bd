#include "sim/timed/atomic_share.h"

#include "model/futex.h"

namespace futexsim::sim {

atomic_share_bins::atomic_share_bins(vtime interval_ns, vtime end_ns) : interval_ns_(interval_ns), end_ns_(end_ns) {}

void atomic_share_bins::tracepoint(const model::trace_point& tp, vtime at)
{
    const bool atomic = tp.kind == model::trace_kind::ref_get_atomic;
    if ((!atomic && tp.kind != model::trace_kind::ref_get_percpu) || at >= end_ns_ || at < 0)
        return;
    const std::size_t bin = cursor_.find(at, interval_ns_);
    if (bin >= percpu_.size()) {
        percpu_.resize(bin + 1);
        atomic_.resize(bin + 1);
    }
    ++(atomic ? atomic_ : percpu_)[bin];
    if (atomic && tp.value == 1 && refs_)
        note_refs(bin);
}

void atomic_share_bins::note_refs(std::size_t bin)
{
    // Before the fold the count carries futex_ref_bias (LONG_MAX) and reads
    // huge or, wrapped, negative: not a number of holders. Nor is anything
    // above the process's possible tasks; 1 << 22 is far beyond them.
    const long v = *refs_;
    if (v < 0 || v >= (1L << 22))
        return;
    const auto c = static_cast<std::size_t>(v);
    if (c >= refs_hist_.size())
        refs_hist_.resize(c + 1);
    ++refs_hist_[c];
    if (bin >= refs_min_.size())
        refs_min_.resize(bin + 1);
    if (!refs_min_[bin] || v < *refs_min_[bin])
        refs_min_[bin] = v;
}

run_result::refs_at_get atomic_share_bins::refs() const
{
    run_result::refs_at_get out;
    for (auto n : refs_hist_)
        out.gets += n;
    if (out.gets == 0)
        return out;
    // The q-quantile: the lowest count at or below which at least q of the gets lie.
    const auto quantile = [&](double q) {
        std::uint64_t cum = 0;
        for (std::size_t c = 0; c < refs_hist_.size(); c++) {
            cum += refs_hist_[c];
            if (static_cast<double>(cum) >= q * static_cast<double>(out.gets))
                return static_cast<long>(c);
        }
        return static_cast<long>(refs_hist_.size() - 1);
    };
    for (std::size_t c = 0; c < refs_hist_.size(); c++)
        if (refs_hist_[c]) {
            out.min = static_cast<long>(c);
            break;
        }
    out.p0_1 = quantile(0.001);
    out.p1 = quantile(0.01);
    out.p50 = quantile(0.5);
    out.p99 = quantile(0.99);
    return out;
}

std::vector<std::optional<long>> atomic_share_bins::refs_min(std::size_t bins) const
{
    std::vector<std::optional<long>> out = refs_min_;
    out.resize(bins);
    return out;
}

std::vector<double> atomic_share_bins::shares(std::size_t bins) const
{
    std::vector<double> out(bins, 0.0);
    for (std::size_t i = 0; i < bins && i < percpu_.size(); i++) {
        const auto total = percpu_[i] + atomic_[i];
        if (total)
            out[i] = static_cast<double>(atomic_[i]) / static_cast<double>(total);
    }
    return out;
}

}  // namespace futexsim::sim
