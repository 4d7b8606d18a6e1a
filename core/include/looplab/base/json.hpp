// looplab/base/json.hpp — the JSON type every layer speaks (nlohmann/json).
//
// Ordered, so results, tables and parameter lists keep the order fields were written in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace looplab {

using json = nlohmann::ordered_json;

// json::parse(text), strict (nothing may follow the value), throwing what it throws
// (json::parse_error, json::out_of_range for a number beyond double), through one parser only.
// json::parse would instantiate, in every program that calls it, nlohmann's DOM builder for a
// callback too, and each kind of input (std::string, const char*, string_view) its own lexer and
// parser: 10 KB of the WebAssembly module (docs/size.md). Every parse of the core goes through here
// or, for a catalog, through json::sax_parse of a std::string: the one lexer.
json parse_json(const std::string& text);

}  // namespace looplab
