// json.cpp — parse_json (base/json.hpp).
#include "looplab/base/json.hpp"

namespace looplab {

json parse_json(const std::string& text) {
  json result;
  // What json::parse does without a callback: the DOM builder, strict, throwing on a parse error.
  nlohmann::detail::json_sax_dom_parser<json> builder(result, /*allow_exceptions=*/true);
  json::sax_parse(text, &builder);
  return result;
}

}  // namespace looplab
