#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/services/evaluator.hpp"

/// What `agentvcr eval` reports (docs/eval.md, Report): the JSON written by --report and the
/// table printed from it.
namespace agentvcr::cli {

/// The nearest-rank percentile `p` (0..100) of `values`; 0 when there are none.
double percentile(std::vector<double> values, double p);

/// {"eval_session_id","agent","recorded_sessions","overall","conversations","steps"}.
protocol::Json evalReportJson(const services::EvalRun& run, const std::string& agent);

/// One line per conversation (steps, matched, first divergent step and its first difference),
/// then the overall line.
void printEvalSummary(const protocol::Json& report, std::ostream& out);

}  // namespace agentvcr::cli
