// context.json's machine facts (datasets/machine_facts.hpp read_machine_facts) and run facts
// (datasets/run_facts.hpp) from arbitrary bytes: the file read as JSON (an input_error when
// it is not), the facts read tolerantly from whatever it holds, then written back and read
// again, which must give the same facts — what one stage writes, the next reads unchanged.

#include <cstdlib>

#include "datasets/input_error.hpp"
#include "datasets/json_file.hpp"
#include "datasets/machine_facts.hpp"
#include "datasets/run_facts.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

bool same(const pollscale::datasets::machine_facts& a, const pollscale::datasets::machine_facts& b) {
  if (a.caches.size() != b.caches.size() || a.mitigations != b.mitigations) return false;
  for (std::size_t i = 0; i < a.caches.size(); ++i)
    if (a.caches[i].level != b.caches[i].level || a.caches[i].size_bytes != b.caches[i].size_bytes) return false;
  if (a.cpu.has_value() != b.cpu.has_value() || a.topology.has_value() != b.topology.has_value() ||
      a.thp.has_value() != b.thp.has_value())
    return false;
  if (a.cpu && (a.cpu->vendor != b.cpu->vendor || a.cpu->family != b.cpu->family || a.cpu->mhz != b.cpu->mhz))
    return false;
  return !a.topology || (a.topology->cores == b.topology->cores && a.topology->numa_nodes == b.topology->numa_nodes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pollscale;
  try {
    const auto context = datasets::read_json_file(fuzz::as_file("context.json", fuzz::view(data, size)));
    const auto facts = datasets::read_machine_facts(context);
    nlohmann::json again = nlohmann::json::object();
    datasets::write_machine_facts(again, facts);
    if (!same(facts, datasets::read_machine_facts(again))) std::abort();  // a finding: not a round trip
    const auto run = datasets::read_run_facts(context);
    if (run.drift) {
      nlohmann::json written = nlohmann::json::object();
      datasets::write_stability(written, *run.drift, run.cross_cpu);
      const auto back = datasets::read_run_facts(written);
      if (!back.drift || back.drift->stable != run.drift->stable || back.drift->readings != run.drift->readings ||
          back.cross_cpu.has_value() != run.cross_cpu.has_value())
        std::abort();
    }
  } catch (const datasets::input_error&) {
  }
  return 0;
}
