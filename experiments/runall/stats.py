"""The statistics run_all states its results with: Wilson intervals on
stall probabilities, Kaplan-Meier survival of stall durations (censored
ones included) and the exponential (memoryless) law fitted to them.

Pure functions of counts and durations: no spec, no file, no plot."""
import math

# The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(k, n, z=Z95):
    """95% Wilson score interval of k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson_error_bars(counts):
    """For [(k, n)]: the probabilities k / n and their Wilson intervals as
    matplotlib's yerr wants them (distances below and above, never
    negative), for a plot of the probabilities with their intervals."""
    ps = [k / n for k, n in counts]
    below = [max(0.0, p - wilson(k, n)[0]) for p, (k, n) in zip(ps, counts)]
    above = [max(0.0, wilson(k, n)[1] - p) for p, (k, n) in zip(ps, counts)]
    return ps, below, above


def kaplan_meier(episodes):
    """[(t, S(t))] steps of the Kaplan-Meier survival estimate of the
    durations of [(duration, ended)] episodes, censored ones (not ended)
    included."""
    at_risk, surv, steps = len(episodes), 1.0, [(0.0, 1.0)]
    for t in sorted({d for d, _ in episodes}):
        ended = sum(1 for d, r in episodes if d == t and r)
        if ended:
            surv *= 1 - ended / at_risk
            steps.append((t, surv))
        at_risk -= sum(1 for d, _ in episodes if d == t)
    return steps


def km_quantile(steps, q):
    """The first time the survival estimate falls to 1 - q or below; None if it does not."""
    for t, s in steps:
        if s <= 1 - q:
            return t
    return None


def km_survival_at(steps, t):
    """The survival estimate at time t (its last step at or before t)."""
    return [s for x, s in steps if x <= t][-1]


def exponential_fit(episodes):
    """Memoryless check: the exponential law's rate from the episodes
    (recoveries over the total time at risk, censored time included) and its
    median; None if no run recovered."""
    ended = sum(1 for _, r in episodes if r)
    exposure_ms = sum(d for d, _ in episodes)
    if ended == 0 or exposure_ms <= 0:
        return None
    rate = ended / exposure_ms
    return rate, math.log(2) / rate


def rule_of_three(exposure):
    """With no event in `exposure` (time at risk): the exponential rate's 95%
    upper bound, 3 / exposure (no event in that time has probability 5% at
    that rate), and the median it implies at least."""
    return 3 / exposure, math.log(2) * exposure / 3
