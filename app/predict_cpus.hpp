// pollscale predict --scenario <a CPU-scaling scenario> --cpus C,.. [--threads N,..]: what
// the model's CPU-scaling laws (model.json cpu_scaling, model/cpu_scaling.hpp) say about
// machines of C CPUs running N threads — the widths a user sizes for and never measured —
// with each answer's 95% interval, the candidate that limited it, and how far past the
// measured CPUs and threads it reaches. The same rule as `pollscale scale --from-cpus`.
#pragma once

#include <string>

#include <boost/program_options.hpp>

#include "app/cli.hpp"
#include "model/model_set.hpp"

namespace pollscale::app {

/// Whether --scenario names a scenario measured against threads (producers, private_sets,
/// private_processes, shared_epoll, accept_herd): predict answers it from the model's CPU-scaling laws.
bool is_cpu_scaling_query(const std::string& scenario);

/// Answers the query of predict's flags in `vm` from `models.cpu_scaling` and prints it in
/// `format`. Throws usage_error naming the flag or the model: no laws, no experiment or
/// several matching the flags, a bad list, a flag a CPU-scaling scenario does not take.
void answer_cpu_scaling(const boost::program_options::variables_map& vm, const model::model_set& models,
                        output_format format);

}  // namespace pollscale::app
