# Prints "FILE:LINE: LINES NAME" for every function definition at namespace
# or class scope, LINE being its signature's first line and LINES the lines
# from there to its closing brace (lambdas and local classes count within
# their function). A heuristic C++ reader, not a parser: it skips comments,
# string, character and raw string literals, digit separators and
# preprocessor lines (with their continuations). A '{' at namespace or class
# scope opens a function when the text before it, since the last ';', '{',
# '}' or access specifier, has a parameter list: a '(' with no '=' before it
# (outside template brackets), followed after its last ')' only by
# qualifiers, a trailing return type or a constructor's initializers. Braces
# inside parentheses (a default argument `= {}`) and a member's braced
# initializer in a constructor's list continue the text around them.

function reset_pre() { pre = ""; pre_line = 0 }

# `s` without the contents of template brackets: `A<B<C>> f` -> `A f`.
function strip_templates(s) {
  while (gsub(/<[^<>]*>/, "", s)) {}
  return s
}

function paren_depth(s,    t) {
  t = s
  return gsub(/\(/, "(", t) - gsub(/\)/, ")", t)
}

# `s` without GNU attributes, whose parentheses are not a parameter list.
function strip_attributes(s) {
  gsub(/__attribute__[ \t]*\(\(([^()]|\([^()]*\))*\)\)/, "", s)
  return s
}

# Whether `s`, the text before a '{' at namespace or class scope, is a
# function's signature.
function is_signature(s,    head, p, tail) {
  s = strip_attributes(s)
  if (s ~ /(^|[^A-Za-z0-9_])operator([^A-Za-z0-9_]|$)/) return 1
  head = strip_templates(s)
  p = index(head, "(")
  if (p == 0 || substr(head, 1, p - 1) ~ /=/) return 0
  if (s ~ /\)[ \t]*(noexcept[ \t]*)?:([^:]|$)/) return 1  # constructor initializers
  tail = s
  sub(/.*\)/, "", tail)
  gsub(/(const|volatile|noexcept|override|final|mutable|&&|&)[ \t]*/, "", tail)
  gsub(/^[ \t]+|[ \t]+$/, "", tail)
  return tail == "" || tail ~ /^->/
}

# The name a signature defines, qualified as written (Parser::ParseModule,
# Shape::Equal::operator()): the word before its parameter list.
function signature_name(s,    w, m, op) {
  s = strip_attributes(s)
  if (match(s, /[A-Za-z0-9_:]*operator[ \t]*(\(\)|[^(]*)/)) {
    op = substr(s, RSTART, RLENGTH)
    gsub(/[ \t]+/, "", op)
    return op
  }
  s = strip_templates(s)
  sub(/\(.*/, "", s)
  gsub(/^[ \t]+|[ \t]+$/, "", s)
  m = split(s, w, /[ \t*&]+/)
  return w[m]
}

# Whether the quote at `i` of `line` is a digit separator (1'000'000).
function is_digit_separator(line, i,    j) {
  j = i - 1
  while (j > 0 && substr(line, j, 1) ~ /[0-9A-Za-z_.']/) j--
  return j < i - 1 && substr(line, j + 1, 1) ~ /[0-9]/
}

# Whether the 'R' at `i` of `line` starts a raw string literal (R"(, u8R"().
function is_raw_string(line, i,    j, prefix) {
  if (substr(line, i + 1, 1) != "\"") return 0
  j = i - 1
  while (j > 0 && substr(line, j, 1) ~ /[0-9A-Za-z_]/) j--
  prefix = substr(line, j + 1, i - j - 1)
  return prefix == "" || prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L"
}

FNR == 1 {
  depth = 0; in_block = 0; in_raw = 0; in_directive = 0; in_comment = 0
  reset_pre()
}
{
  line = $0; n = length(line); i = 1
  continued = line ~ /\\$/
  if (in_directive || in_comment) {
    in_directive = in_directive && continued
    in_comment = in_comment && continued
    next
  }
  if (!in_block && !in_raw && line ~ /^[ \t]*#/) { in_directive = continued; next }
  while (i <= n) {
    c = substr(line, i, 1)
    if (in_block) {
      if (substr(line, i, 2) == "*/") { in_block = 0; i += 2 } else i++
      continue
    }
    if (in_raw) {
      k = index(substr(line, i), raw_end)
      if (k == 0) { i = n + 1; continue }
      in_raw = 0; i += k - 1 + length(raw_end); pre = pre "\"\""; continue
    }
    two = substr(line, i, 2)
    if (two == "//") { in_comment = continued; break }
    if (two == "/*") { in_block = 1; i += 2; continue }
    if (c == "R" && is_raw_string(line, i)) {
      rest = substr(line, i + 2); p = index(rest, "(")
      raw_end = ")" substr(rest, 1, p - 1) "\""; in_raw = 1; i += 2 + p; continue
    }
    if (c == "'" && is_digit_separator(line, i)) { i++; continue }
    if (c == "\"" || c == "'") {
      q = c; i++
      while (i <= n && substr(line, i, 1) != q) { if (substr(line, i, 1) == "\\") i++; i++ }
      i++; pre = pre q q; continue
    }
    if (c == "{") {
      kind = "other"
      top = depth > 0 ? kinds[depth] : "ns"
      trimmed = pre; gsub(/[ \t]+$/, "", trimmed)
      if (top == "ns" || top == "class") {
        if (paren_depth(pre) > 0 ||
            (trimmed ~ /[A-Za-z0-9_>]$/ && trimmed ~ /\)[ \t]*(noexcept[ \t]*)?:([^:]|$)/)) {
          kind = "inner"
        } else if (pre ~ /(^|[^A-Za-z_])namespace([^A-Za-z_]|$)/ ||
                   trimmed ~ /^extern[ \t]*""$/) {
          kind = "ns"
        } else if (pre ~ /(^|[^A-Za-z_])(class|struct|union|enum)([^A-Za-z_]|$)/ &&
                   pre !~ /\(/) {
          kind = "class"
        } else if (is_signature(pre)) {
          kind = "func"
        }
      }
      depth++; kinds[depth] = kind; starts[depth] = pre_line; names[depth] = pre
      if (kind == "inner") {
        if (pre_line == 0) pre_line = FNR
        saved[depth] = pre; saved_line[depth] = pre_line
      }
      reset_pre(); i++; continue
    }
    if (c == "}") {
      if (depth > 0 && kinds[depth] == "func") {
        print FILENAME ":" starts[depth] ": " (FNR - starts[depth] + 1) " " \
              signature_name(names[depth])
      }
      if (depth > 0 && kinds[depth] == "inner") {
        pre = saved[depth] "{}"; pre_line = saved_line[depth]
      } else {
        reset_pre()
      }
      if (depth > 0) depth--
      i++; continue
    }
    if (c == ";") { reset_pre(); i++; continue }
    if (c == ":" && substr(line, i + 1, 1) != ":" &&
        pre ~ /^[ \t]*(public|protected|private)[ \t]*$/) {
      reset_pre(); i++; continue
    }
    if (c !~ /[ \t]/ && pre_line == 0) pre_line = FNR
    pre = pre c; i++
  }
  if (pre_line > 0) pre = pre " "
}
