/// \file
/// Featurized molecules between the processes of an mpirun: each process featurizes a share of a
/// table and hands the others its rows as bytes, so that every process then holds what one process
/// would have featurized, bit for bit. featurize_shared is what MoleculeCsvOptions::share_among_processes
/// takes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/chem/molecule_dataset.hpp"

namespace edgewise::distributed {

/// Appends the rows to `bytes`, in order.
void append_rows(std::string& bytes, std::span<const FeaturizedMolecule> rows);

/// The rows append_rows wrote into `bytes`. Throws Error when the bytes end early or run over.
std::vector<FeaturizedMolecule> rows_from_bytes(std::string_view bytes);

/// The rows [0, n) that `featurize(first, last)` gives (rows first .. last - 1). With several
/// processes (mpirun), each featurizes a contiguous share and receives the others' rows; one
/// process featurizes them all.
std::vector<FeaturizedMolecule> featurize_shared(std::size_t n, const RowFeaturizer& featurize);

}  // namespace edgewise::distributed
