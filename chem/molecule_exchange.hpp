// Featurized molecules as bytes, so that the processes of an mpirun can each featurize a share of a
// table and hand the others their rows: every process then holds what one process would have
// featurized, bit for bit. Private to chem.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/chem/molecule_stream.hpp"

namespace edgewise::detail {

/// One table row after featurization (the molecule stream's graph form): its graph, or why there is none.
using FeaturizedRow = FeaturizedMolecule;

/// Appends the rows to `bytes`, in order.
void append_rows(std::string& bytes, std::span<const FeaturizedRow> rows);

/// The rows append_rows wrote into `bytes`. Throws Error when the bytes end early or run over.
std::vector<FeaturizedRow> rows_from_bytes(std::string_view bytes);

/// The rows [0, n) that `featurize(first, last)` gives (rows first .. last - 1). With several
/// processes (mpirun), each featurizes a contiguous share and receives the others' rows; one
/// process featurizes them all.
std::vector<FeaturizedRow> featurize_shared(
    std::size_t n, const std::function<std::vector<FeaturizedRow>(std::size_t first, std::size_t last)>& featurize);

}  // namespace edgewise::detail
