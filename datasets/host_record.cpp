#include "datasets/host_record.hpp"

#include "datasets/json_fields.hpp"

namespace pollscale::datasets {
namespace {

using json = nlohmann::json;

// A value as shown: a string as it is, anything else as its JSON, "n/a" for nothing.
std::string shown(const json& j) {
  if (j.is_null()) return "n/a";
  return j.is_string() ? j.get<std::string>() : j.dump();
}

}  // namespace

host_record read_host_record(const json& context) {
  host_record r;
  const json& c = context;
  r.host = shown(member(c, "host"));
  r.kernel = shown(member(c, "kernel"));
  r.cpu_model = shown(member(c, "cpu_model"));
  r.cpus_online = shown(member(c, "cpus_online"));
  r.cpus_allowed = shown(member(c, "cpus_allowed"));
  r.clocksource = shown(member(c, "clocksource"));
  r.governor = shown(member(c, "governor"));
  r.time_utc = shown(member(c, "time_utc"));
  const json& v = member(c, "virtualization");
  if (member(v, "hypervisor_flag").is_boolean())
    r.virtualization.hypervisor_flag = member(v, "hypervisor_flag").get<bool>();
  r.virtualization.hypervisor_type = shown(member(v, "hypervisor_type"));
  r.virtualization.sys_vendor = shown(member(v, "sys_vendor"));
  r.virtualization.product_name = shown(member(v, "product_name"));
  const json& n = member(c, "rlimit_nofile");
  r.rlimit_nofile = {shown(member(n, "soft")), shown(member(n, "hard")), shown(member(n, "soft_at_start"))};
  const json& t = member(c, "timer");
  r.timer = {shown(member(t, "clock")), number_at(t, "overhead_ns"), number_at(t, "resolution_ns")};
  if (const json& tool = member(c, "tool"); tool.is_object())
    r.tool = host_record::tool_facts{shown(member(tool, "version")), shown(member(tool, "git_hash")),
                                     shown(member(tool, "build_type")), shown(member(tool, "compiler")),
                                     member(tool, "dirty").is_boolean() && member(tool, "dirty").get<bool>()};
  return r;
}

}  // namespace pollscale::datasets
