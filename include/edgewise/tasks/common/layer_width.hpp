/// \file
/// A hidden layer's width as the front ends (the command line, Python) take it: the layer's whole
/// width, one head's width, or both, for a given number of heads.
#pragma once

#include <optional>
#include <string_view>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Widths a caller gave; either may be left out.
struct GivenWidth {
  std::optional<Index> hidden = {};    ///< the layer's width: heads * head_dim
  std::optional<Index> head_dim = {};  ///< one head's width
};

/// How a front end names the three options in its messages.
struct WidthOptionNames {
  std::string_view hidden = "hidden";      ///< the layer's width
  std::string_view heads = "heads";        ///< the number of heads
  std::string_view head_dim = "head_dim";  ///< one head's width
};

/// The layer's width that `given` sets for `heads` heads, or nullopt when it gives neither width.
/// Throws ArgumentError, naming the options as `names` says, when heads < 1, when the hidden width
/// is not a multiple of heads, or when the two widths disagree.
std::optional<Index> given_width(const GivenWidth& given, Index heads, const WidthOptionNames& names = {});

}  // namespace edgewise
