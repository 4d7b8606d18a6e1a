// looplab/base/i18n.hpp — messages as data, rendered in the student's language.
//
// A message is JSON, {"key": "cmp.win.time", "args": {"win": "traced", "factor": 1.73, ...}}: a
// catalog key and its arguments, never a finished sentence. The catalogs (core/i18n/<lang>.json)
// map each key to a template with {name} or {name:format} placeholders; the web renders the same
// messages with web/util/i18n.js. The CLI and the tests embed the catalogs at build time
// (looplab_catalogs_embedded); the WebAssembly module embeds none (looplab_catalogs_supplied): its
// JS facade, which has the catalogs already, gives it English and the language asked for with
// provide_catalog() before they are used (web/runtime/api.js).
//
//   render(msg("err.must_be", {{"name", "lr_raw"}, ...}), "zh-CN")
//   -> "lr_raw：必须是 (0, 10] 中的数，实际为 -1"
//
// An argument is a number (formatted by the placeholder's format: int, sig1..sig9, num, spread,
// rho, bytes (2.4 GB), plain), a string (as given; format label or unit looks it up as label.<s> /
// unit.<s>), a nested message, or an array of those (concatenated). A key missing from a catalog
// falls back to English, and a key missing from English renders as ⟦key⟧, which tests look for.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "looplab/base/json.hpp"

namespace looplab {

// The catalog languages, English first: "en", "zh-CN", "id".
const std::vector<std::string>& languages();

// "zh", "zh_CN.UTF-8", "zh-Hans" -> "zh-CN"; "id_ID" -> "id"; anything else -> "en".
std::string normalize_lang(std::string_view tag);

// The catalog of a language (key -> template); English for an unknown language. Throws
// std::logic_error when the program embeds no catalogs and this one was not supplied.
using Catalog = std::map<std::string, std::string, std::less<>>;
const Catalog& catalog(std::string_view lang);

// Whether catalog(lang) has its text: embedded, or supplied by provide_catalog().
bool has_catalog(std::string_view lang);
// Gives a program without embedded catalogs the text of core/i18n/<lang>.json (a flat JSON object
// of strings), parsed at once (std::logic_error if it is not one). No effect when the language
// has its catalog already; ConfigError for a language that has no catalog.
void provide_catalog(std::string_view lang, std::string text);

namespace detail {
// The text of core/i18n/<lang>.json built into this program, or nullptr: defined by the library
// the program links, looplab_catalogs_embedded or looplab_catalogs_supplied (core/CMakeLists.txt).
const char* embedded_catalog(std::string_view lang);
}  // namespace detail

// The catalog template of `key` in lang, else in English; nullptr when English lacks it too.
const std::string* catalog_text(const std::string& key, std::string_view lang);

// One named argument of a message, as msg() and object() take them: {"name", value}.
struct Arg {
  // A literal: no string_view built (strlen called) per argument at the call site.
  const char* name;
  mutable json value;  // moved out by object(): a braced list's elements are const
};

// The message {"key": key, "args": {name: value, ...}}. The braced list
// `msg("k", {{"a", 1}, {"b", x}})` picks the Arg overload: one call with a flat list, where
// nlohmann's initializer lists nest a json array per pair, all inline, about 3x the code in wasm
// (docs/size.md, "Messages as flat argument lists").
json msg(std::string_view key);
json msg(std::string_view key, std::initializer_list<Arg> args);
json msg(std::string_view key, json args);
// The same for a literal key: its length is taken here, not at each call site.
json msg(const char* key);
json msg(const char* key, std::initializer_list<Arg> args);
// The object {name: value, ...}, in order: a result's literal objects built the same compact way.
// Each value is moved out of the list (a list is built for one call).
json object(std::initializer_list<Arg> fields);
// Throws ConfigError(msg(key, args)): what a check says of bad input. The arguments are moved into
// the message here, before the throw, so the caller's frame holds nothing on the heap while the
// error passes it: the WebAssembly build compiles most of the experiments layer without unwinding
// code (CMakeLists.txt, LOOPLAB_WASM_NO_UNWIND_LAYERS), where a temporary of `throw
// ConfigError(msg(…))` would never be freed. So its arguments are values: a call in them that
// builds a string (p.integer(<a name past 10 letters>)) would leave that string on the heap.
[[noreturn]] void refuse(const char* key, std::initializer_list<Arg> args = {});

// The items (messages or values) with the separator message between each two, [a, sep, b, sep, c]:
// an argument a template renders as a list. joined() wraps that as one message ("seq").
json separated(const json& items, const std::string& sep_key);
json joined(const json& items, const std::string& sep_key);
// "1 chunk", "3 chunks": the message <key>_1 or <key>_n with {k} (each catalog writes both forms).
json plural(const std::string& key, long long k);

// True for a message as msg() makes it: an object of exactly {"key": string, "args": object}.
bool is_message(const json& v);

// The message rendered in `lang`.
std::string render(const json& message, std::string_view lang);
// Shorthand for the English text a result keeps beside its message.
inline std::string english(const json& m) { return render(m, "en"); }

}  // namespace looplab
