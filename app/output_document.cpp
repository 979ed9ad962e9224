#include "app/output_document.hpp"

namespace pollscale::app {

std::string_view output_kind_name(output_kind k) {
  switch (k) {
    case output_kind::calibration_summary: return "calibration_summary";
    case output_kind::prediction: return "prediction";
    case output_kind::cpu_prediction: return "cpu_prediction";
    case output_kind::cells: return "cells";
    case output_kind::validation: return "validation";
    case output_kind::validation_corpus: return "validation_corpus";
    case output_kind::scaling: return "scaling";
    case output_kind::scaling_corpus: return "scaling_corpus";
    case output_kind::scaling_wider: return "scaling_wider";
    case output_kind::comparison: return "comparison";
    case output_kind::simulation: return "simulation";
    case output_kind::whatif: return "whatif";
    case output_kind::capacity: return "capacity";
    case output_kind::capacity_by_mechanism: return "capacity_by_mechanism";
    case output_kind::predictions_beyond: return "predictions_beyond";
    case output_kind::study: return "study";
  }
  return "unknown";
}

nlohmann::json output_document(output_kind k) {
  return {{"kind", std::string(output_kind_name(k))}, {"schema_version", output_schema_version}};
}

nlohmann::json stamped(output_kind k, nlohmann::json body) {
  body.update(output_document(k));
  return body;
}

}  // namespace pollscale::app
