#include "edgewise/tasks/common/layer_width.hpp"

#include <string>

#include "edgewise/core/error.hpp"

namespace edgewise {

std::optional<Index> given_width(const GivenWidth& given, Index heads, const WidthOptionNames& names) {
  const auto named = [](std::string_view name, Index value) { return std::string(name) + " " + std::to_string(value); };
  if (heads < 1) throw ArgumentError(named(names.heads, heads) + ": a layer needs at least one head");
  if (given.hidden && *given.hidden % heads != 0)
    throw ArgumentError(named(names.hidden, *given.hidden) + " is not a multiple of " + named(names.heads, heads) +
                        ": each head is hidden / heads wide");
  if (given.hidden && given.head_dim && *given.hidden != heads * *given.head_dim)
    throw ArgumentError(named(names.hidden, *given.hidden) + " and " + named(names.head_dim, *given.head_dim) +
                        " disagree: " + std::to_string(heads) + " heads of width " + std::to_string(*given.head_dim) +
                        " make " + std::to_string(heads * *given.head_dim));
  if (given.hidden) return given.hidden;
  if (given.head_dim) return heads * *given.head_dim;
  return std::nullopt;
}

}  // namespace edgewise
