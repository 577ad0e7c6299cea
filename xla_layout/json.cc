#include "xla_layout/json.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace xla_layout {
namespace {

// printf's text, read back: the double nearest the printed decimal.
double Reparsed(const std::string& text, double value) {
  double rounded = value;
  return absl::SimpleAtod(text, &rounded) ? rounded : value;
}

}  // namespace

std::string JsonLine(const OrderedJson& value) {
  return value.dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
                    OrderedJson::error_handler_t::replace) +
         "\n";
}

double RoundToDecimals(double value, int decimals) {
  if (!std::isfinite(value)) return value;
  return Reparsed(absl::StrFormat("%.*f", decimals, value), value);
}

double RoundToSignificantDigits(double value, int digits) {
  if (!std::isfinite(value)) return value;
  return Reparsed(absl::StrFormat("%.*g", digits, value), value);
}

}  // namespace xla_layout
