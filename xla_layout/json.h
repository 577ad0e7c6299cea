// JSON for the reports the CLI and the passes print (`--stats=json`,
// `relayout --json`, `shape --json`). A report is built as a value and
// printed by JsonLine, so it is valid JSON by construction: strings are
// escaped, numbers are numbers, and nothing is assembled by hand.
#ifndef XLA_LAYOUT_JSON_H_
#define XLA_LAYOUT_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

namespace xla_layout {

// An object keeps its keys in the order they were added (nlohmann's plain
// json sorts them), so a report's keys come out in the order the code
// names them and stay stable from run to run.
using OrderedJson = nlohmann::ordered_json;

// `value` as compact JSON on one line, then a newline. Never throws: bytes
// that are not UTF-8 print as U+FFFD (the default dump would throw), and a
// NaN or an infinity prints as null, since JSON has neither.
std::string JsonLine(const OrderedJson& value);

// `value` rounded as printf's "%.*f" prints it with `decimals` decimals
// (resp. "%.*g" with `digits` significant digits): the nearest double to
// that decimal, which JsonLine prints in at most that many digits. A
// report keeps the precision its figures mean, not 17 digits of noise. NaN
// and infinities come back unchanged.
double RoundToDecimals(double value, int decimals);
double RoundToSignificantDigits(double value, int digits);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_JSON_H_
