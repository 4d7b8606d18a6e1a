// looplab/base/json.hpp — the JSON type every layer speaks (nlohmann/json).
//
// Ordered, so results, tables and parameter lists keep the order fields were written in.
#pragma once

#include <nlohmann/json.hpp>

namespace looplab {

using json = nlohmann::ordered_json;

}  // namespace looplab
