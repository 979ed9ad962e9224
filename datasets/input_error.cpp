#include "datasets/input_error.hpp"

#include <utility>

namespace pollscale::datasets {
namespace {

std::string located(const std::string& source, std::size_t line, const std::string& detail) {
  return source + (line ? ":" + std::to_string(line) : std::string()) + ": " + detail;
}

}  // namespace

input_error::input_error(std::string source, std::size_t line, std::string detail)
    : std::runtime_error(located(source, line, detail)),
      source_(std::move(source)),
      line_(line),
      detail_(std::move(detail)) {}

input_error::input_error(const std::string& message) : std::runtime_error(message), detail_(message) {}

}  // namespace pollscale::datasets
