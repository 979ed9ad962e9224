// A model.json's cpu_scaling block spoilt on purpose, for the tests of the blocks the CPU-scaling
// rules keep there (pipeline, one_in_flight, line_crossings): each malformed value in place of
// the block must be refused as an input error that names where it lies.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>

#include "datasets/input_error.hpp"
#include "model/model_json.hpp"

namespace pollscale::model::test {

// Each of `bads` put in place of cpu_scaling[0][block] of the model `j`: refused, the message
// holding `named`.
inline void expect_each_block_refused(const nlohmann::json& j, const std::string& block,
                                      std::initializer_list<nlohmann::json> bads, const std::string& named) {
  for (const auto& bad : bads) {
    nlohmann::json spoilt = j;
    spoilt["cpu_scaling"][0][block] = bad;
    try {
      model_set_from_json(spoilt, "m.json");
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const datasets::input_error& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  }
}

}  // namespace pollscale::model::test
