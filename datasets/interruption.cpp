#include "datasets/interruption.hpp"

#include <utility>

namespace pollscale::datasets {
namespace {

std::function<void()>& installed() {
  static std::function<void()> check;
  return check;
}

}  // namespace

void set_interruption_check(std::function<void()> check) { installed() = std::move(check); }

void interruption_point() {
  if (const auto& check = installed()) check();
}

}  // namespace pollscale::datasets
