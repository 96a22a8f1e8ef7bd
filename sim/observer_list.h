// Who watches a run: observers told of each event in the order they were
// added. The timed simulator's engine (sim_observer, sim/timed/observer.h)
// and the explorer's environment (explore_observer,
// sim/explore/explore_observer.h) each keep theirs in one; an observer
// changes nothing it watches, so none is told before another for a reason
// other than the order its output should have.
#pragma once

#include <vector>

namespace futexsim::sim {

template <class Observer>
class observer_list {
public:
    void add(Observer& o) { list_.push_back(&o); }
    void clear() { list_.clear(); }
    bool empty() const { return list_.empty(); }
    // f(observer) for each, in the order added.
    template <class F>
    void notify(F&& f) const
    {
        for (Observer* o : list_)
            f(*o);
    }
    auto begin() const { return list_.begin(); }
    auto end() const { return list_.end(); }

private:
    std::vector<Observer*> list_;
};

}  // namespace futexsim::sim
