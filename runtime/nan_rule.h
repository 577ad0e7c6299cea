// The NaN rule of the executor's contractions: which NaN a float dot or
// convolution result element carries. Every path that computes one (the
// generic dot and convolution in ops.cc, each packed kernel in
// dot_kernel.cc) follows it, so a result's bits do not depend on the path,
// the instruction set, or which operand the compiler puts first: x86 keeps
// the first source operand's NaN when both are NaN and gives a negative
// default NaN for inf * 0, so hardware order alone would differ by path.
//
// The rule. A result element is a sum, in the path's fixed order (increasing
// contracting index; for convolution, kernel positions row-major and the
// features within each), of products of operand elements converted to the
// result type, computed in double; a convolution's input is the lhs and its
// kernel the rhs. When the value a path computes is not a NaN it is the
// result (the rule never changes such a value; finite sums and infinities
// do not depend on operand order). When it is a NaN (which does not depend
// on the order either), the element is computed again by a scalar loop over
// the same products in the same order:
//   product(l, r): l's NaN if l is a NaN, else r's if r is; else l * r, and
//                  inf * 0 gives the default NaN;
//   sum(s, p):     s's NaN if the running sum s is a NaN, else p's if p is;
//                  else s + p, and inf + -inf gives the default NaN;
// the running sum starts at +0. A NaN taken over is quieted (its quiet bit
// set, sign and payload kept); the default NaN is the positive quiet NaN
// with no payload (f32 0x7fc00000). Then the sum is converted to the result
// type as every result is: f32 keeps the double's top 23 mantissa bits (an
// f32 operand's whole payload), bf16 the top 7 quieted, f16 only the sign,
// f64 all.
//
// So lhs 0x7fc00001 times rhs 0x7fc00002 gives 0x7fc00001, the signalling
// 0x7f800001 gives 0x7fc00001, and a NaN product after an earlier one does
// not replace the earlier NaN in the sum.
#ifndef RUNTIME_NAN_RULE_H_
#define RUNTIME_NAN_RULE_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace xla_layout::runtime {

// The default NaN of the rule, as a double.
inline double RuleDefaultNan() {
  const uint64_t bits = 0x7ff8000000000000;
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// `x` (a NaN) with its quiet bit set.
inline double RuleQuiet(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  bits |= uint64_t{1} << 51;
  std::memcpy(&x, &bits, 8);
  return x;
}

// The rule's product of lhs `l` and rhs `r`.
inline double RuleProduct(double l, double r) {
  if (std::isnan(l)) return RuleQuiet(l);
  if (std::isnan(r)) return RuleQuiet(r);
  const double p = l * r;
  return std::isnan(p) ? RuleDefaultNan() : p;
}

// The rule's running sum `s` plus product `p`.
inline double RuleSum(double s, double p) {
  if (std::isnan(s)) return RuleQuiet(s);
  if (std::isnan(p)) return RuleQuiet(p);
  const double t = s + p;
  return std::isnan(t) ? RuleDefaultNan() : t;
}

}  // namespace xla_layout::runtime

#endif  // RUNTIME_NAN_RULE_H_
