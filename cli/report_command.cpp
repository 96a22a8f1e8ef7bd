// `futexsim report FILES...`: merges the JSON Lines of a sweep (one file or
// its shards) and prints per cell the outcomes with a 95% Wilson interval on
// the latched probability, the throughput median and spread, the presized /
// auto-scaled ratio, the runs that warned (by kind: the progress detectors'
// rcu-stall, soft-lockup, spin-lockup, event-storm, and other), and the stall
// threshold. The table depends only on the
// runs, not on how they were split into files or in what order they ended.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/report_merge.h"
#include "cli/report_stats.h"
#include "cli/sweep_grid.h"
#include "cli/sweep_line.h"
#include "run/plural.h"

namespace futexsim::cli {

namespace {

std::string param_text(const json& v)
{
    if (v.is_string())
        return v.get<std::string>().empty() ? "all" : v.get<std::string>();
    if (v.is_boolean())
        return v.get<bool>() ? "on" : "off";
    return v.dump();
}

// A key of the cell's parameters except `skip`.
std::string key_without(const json& params, const std::vector<std::string>& skip)
{
    std::string k;
    for (const auto& d : dims)
        if (std::find(skip.begin(), skip.end(), d) == skip.end())
            k += param_text(params.at(d)) + "|";
    return k;
}

struct report_rows {
    std::vector<std::string> varying;  // dimensions with more than one value
    json constant = json::object();    // the others, printed once
    json cells = json::array();
    json thresholds = json::array();
};

report_rows build(const merged& m)
{
    report_rows r;
    for (const auto& d : dims) {
        std::map<std::string, bool> values;
        for (const auto& [i, c] : m.cells)
            values[param_text(c.params.at(d))] = true;
        if (values.size() > 1)
            r.varying.push_back(d);
        else
            r.constant[d] = m.cells.begin()->second.params.at(d);
    }
    // Auto-scaled medians, for the ratio of each presized cell.
    std::map<std::string, double> auto_median;
    for (const auto& [i, c] : m.cells)
        if (c.params.at("arm") == "auto")
            auto_median[key_without(c.params, {"arm"})] = median(c.mops);
    for (const auto& [i, c] : m.cells) {
        const interval ci = wilson_interval(c.latched, c.runs);
        json row = c.params;
        row["runs"] = c.runs;
        row["latched"] = c.latched;
        row["transient"] = c.transient;
        row["never"] = c.never;
        row["p_latched"] = static_cast<double>(c.latched) / static_cast<double>(c.runs);
        row["p_latched_lo"] = ci.lo;
        row["p_latched_hi"] = ci.hi;
        row["mops_median"] = median(c.mops);
        row["mops_min"] = *std::min_element(c.mops.begin(), c.mops.end());
        row["mops_max"] = *std::max_element(c.mops.begin(), c.mops.end());
        const auto a = auto_median.find(key_without(c.params, {"arm"}));
        if (c.params.at("arm") != "auto" && a != auto_median.end() && a->second > 0)
            row["ratio_to_auto"] = median(c.mops) / a->second;
        else
            row["ratio_to_auto"] = nullptr;
        row["warned"] = c.warned;
        for (const auto& k : warning_kinds) {
            const auto n = c.warned_of.find(k);
            row[warned_key(k)] = n == c.warned_of.end() ? 0 : n->second;
        }
        r.cells.push_back(row);
    }
    // The stall threshold per group (all but threads): the smallest thread
    // count whose latched probability's interval lies above 1/2.
    std::map<std::string, std::vector<const json*>> groups;
    std::vector<std::string> order;
    for (const auto& row : r.cells) {
        const std::string k = key_without(row, {"threads"});
        if (!groups.count(k))
            order.push_back(k);
        groups[k].push_back(&row);
    }
    for (const auto& k : order) {
        auto rows = groups[k];
        std::sort(rows.begin(), rows.end(), [](const json* x, const json* y) {
            return x->at("threads").get<unsigned>() < y->at("threads").get<unsigned>();
        });
        json t = json::object();
        for (const auto& d : dims)
            if (d != "threads")
                t[d] = rows.front()->at(d);
        t["threshold"] = nullptr;
        for (const json* row : rows)
            if (row->at("p_latched_lo").get<double>() > 0.5) {
                t["threshold"] = row->at("threads");
                t["p_latched"] = row->at("p_latched");
                t["p_latched_lo"] = row->at("p_latched_lo");
                t["p_latched_hi"] = row->at("p_latched_hi");
                break;
            }
        t["threads_tried"] = fmt::format("{}-{}", rows.front()->at("threads").get<unsigned>(),
                                         rows.back()->at("threads").get<unsigned>());
        r.thresholds.push_back(t);
    }
    return r;
}

std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

// A Markdown table's header row and rule.
void print_md_head(const std::vector<std::string>& head)
{
    std::string rule;
    for (std::size_t i = 0; i < head.size(); i++)
        rule += "---|";
    fmt::print("| {} |\n|{}\n", fmt::join(head, " | "), rule);
}

// "p [lo, hi]" from a row with p_latched and its interval.
std::string probability(const json& row)
{
    return fmt::format("{} [{}, {}]", fixed(row.at("p_latched").get<double>(), 2),
                       fixed(row.at("p_latched_lo").get<double>(), 2),
                       fixed(row.at("p_latched_hi").get<double>(), 2));
}

// "0", or "3 (rcu-stall 3, soft-lockup 2)": runs that warned, by kind.
std::string warned_text(const json& row)
{
    const auto warned = row.at("warned").get<std::size_t>();
    if (warned == 0)
        return "0";
    std::vector<std::string> kinds;
    for (const auto& k : warning_kinds)
        if (const auto n = row.at(warned_key(k)).get<std::size_t>())
            kinds.push_back(fmt::format("{} {}", k, n));
    return fmt::format("{} ({})", warned, fmt::join(kinds, ", "));
}

void print_md(const merged& m, const report_rows& r)
{
    fmt::print("# futexsim report\n\ngrid {}: {} of {}", m.grid_id, m.runs,
               count_noun(m.grid_runs, "run"));
    if (m.runs < m.grid_runs)
        fmt::print(" (INCOMPLETE: {} missing)", count_noun(m.grid_runs - m.runs, "run"));
    fmt::print("\n\n");
    std::vector<std::string> fixed_parts;
    for (const auto& [d, v] : r.constant.items())
        fixed_parts.push_back(d + "=" + param_text(v));
    fmt::print("{}\n\n## Cells\n\n", fmt::join(fixed_parts, " "));
    std::vector<std::string> head = r.varying;
    for (const char* h : {"runs", "latched", "transient", "never", "P(latched) [95% CI]",
                          "Mops/s median [min-max]", "ratio to auto", "warned"})
        head.emplace_back(h);
    print_md_head(head);
    for (const auto& row : r.cells) {
        std::vector<std::string> cols;
        for (const auto& d : r.varying)
            cols.push_back(param_text(row.at(d)));
        cols.push_back(std::to_string(row.at("runs").get<std::size_t>()));
        cols.push_back(std::to_string(row.at("latched").get<std::size_t>()));
        cols.push_back(std::to_string(row.at("transient").get<std::size_t>()));
        cols.push_back(std::to_string(row.at("never").get<std::size_t>()));
        cols.push_back(probability(row));
        cols.push_back(fmt::format("{} [{}-{}]", fixed(row.at("mops_median").get<double>(), 1),
                                   fixed(row.at("mops_min").get<double>(), 1),
                                   fixed(row.at("mops_max").get<double>(), 1)));
        cols.push_back(row.at("ratio_to_auto").is_null()
                           ? ""
                           : fixed(row.at("ratio_to_auto").get<double>(), 1));
        cols.push_back(warned_text(row));
        fmt::print("| {} |\n", fmt::join(cols, " | "));
    }
    fmt::print("\n## Stall threshold\n\nThe smallest thread count whose latched probability's 95% "
               "interval lies "
               "above 1/2.\n\n");
    std::vector<std::string> thead;
    for (const auto& d : r.varying)
        if (d != "threads")
            thead.push_back(d);
    thead.insert(thead.end(), {"threads tried", "threshold", "P(latched) [95% CI]"});
    print_md_head(thead);
    for (const auto& t : r.thresholds) {
        std::vector<std::string> cols;
        for (const auto& d : r.varying)
            if (d != "threads")
                cols.push_back(param_text(t.at(d)));
        cols.push_back(t.at("threads_tried").get<std::string>());
        if (t.at("threshold").is_null()) {
            cols.insert(cols.end(), {"none in the grid", ""});
        } else {
            cols.push_back(std::to_string(t.at("threshold").get<unsigned>()));
            cols.push_back(probability(t));
        }
        fmt::print("| {} |\n", fmt::join(cols, " | "));
    }
}

void print_csv(const report_rows& r)
{
    std::vector<std::string> head = dims;
    for (const char* h :
         {"runs", "latched", "transient", "never", "p_latched", "p_latched_lo", "p_latched_hi",
          "mops_median", "mops_min", "mops_max", "ratio_to_auto", "warned"})
        head.emplace_back(h);
    for (const auto& k : warning_kinds)
        head.push_back(warned_key(k));
    fmt::print("{}\n", fmt::join(head, ","));
    for (const auto& row : r.cells) {
        std::vector<std::string> cols;
        for (const auto& h : head) {
            const json& v = row.at(h);
            if (v.is_null())
                cols.emplace_back();
            else if (v.is_string())
                cols.push_back(v.get<std::string>().find(',') == std::string::npos
                                   ? v.get<std::string>()
                                   : "\"" + v.get<std::string>() + "\"");
            else if (v.is_number_float())
                cols.push_back(fixed(v.get<double>(), 4));
            else
                cols.push_back(param_text(v));
        }
        fmt::print("{}\n", fmt::join(cols, ","));
    }
}

struct report_args {
    std::vector<std::string> files;
    std::string format = "md";
};

int report(const report_args& a)
{
    const merged m = read_files(a.files);
    const report_rows r = build(m);
    if (a.format == "md")
        print_md(m, r);
    else if (a.format == "csv")
        print_csv(r);
    else {
        json j;
        j["grid_id"] = m.grid_id;
        j["runs"] = m.runs;
        j["grid_runs"] = m.grid_runs;
        j["cells"] = r.cells;
        j["thresholds"] = r.thresholds;
        fmt::print("{}\n", j.dump(2));
    }
    std::fflush(stdout);
    if (std::ferror(stdout))
        throw usage_error("cannot write the report to standard output");
    return 0;
}

}  // namespace

void register_report(CLI::App& app)
{
    auto a = std::make_shared<report_args>();
    CLI::App* sub =
        app.add_subcommand("report", "Tables from `futexsim sweep` results: per cell the latched / "
                                     "transient / never counts with a "
                                     "95% Wilson interval, throughput median and spread, presized "
                                     "/ auto ratio, the runs that warned "
                                     "(by kind); the stall threshold");
    sub->footer(
        "Prints (md, the default): the grid and how many of its runs the files hold; per cell a "
        "row of\n"
        "runs, latched, transient, never, P(latched) [95% CI], Mops/s median [min-max], ratio to "
        "auto\n"
        "and warned (runs with any warning, then per kind: rcu-stall, soft-lockup, spin-lockup,\n"
        "event-storm, other); then per group the stall threshold. csv: one row per cell, the same\n"
        "figures (warned_KIND per kind); json: the cells and thresholds as objects.");
    sub->add_option("files", a->files, "Result files of one sweep (its shards are merged)")
        ->required();
    sub->add_option("--format", a->format, "md, csv or json")
        ->check(CLI::IsMember({"md", "csv", "json"}))
        ->capture_default_str();
    add_command(sub, [a] { return report(*a); });
}

}  // namespace futexsim::cli
