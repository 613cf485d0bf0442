/// \file
/// Part stores: a graph store cut into one store a part, so that each process of a distributed
/// training maps its own nodes and their halo and nothing else (`edgewise graph partition --stores`,
/// then `mpirun -np P edgewise train --task node --graph FOLDER`); what those processes read together
/// from their parts is distributed/graph_parts.hpp's.
///
///   write_part_stores(whole, partition_graph(whole.in_edges(), 4), 4, "parts");  // parts/part-0.ewg ..
///   GraphStore mine = GraphStore::open(part_store_path("parts", rank));
///   GraphPart part = stored_graph_part(mine);  // what graph_part cuts from the whole graph
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "edgewise/core/files.hpp"
#include "edgewise/graph/partition.hpp"
#include "edgewise/io/graph_store.hpp"

namespace edgewise {

/// The store of part `part` in a folder of part stores: FOLDER/part-K.ewg.
std::filesystem::path part_store_path(const std::filesystem::path& folder, int part);

/// Writes `whole` cut by `owner` ([N], each in [0, parts)) as one part store a part into `folder`
/// (created when missing), each holding GraphPart's rows: the own nodes with their in-edges, features,
/// labels and names, then the halo's features and names (StorePart). Each file is written atomically;
/// an existing one is refused unless overwrite allows it. Throws ArgumentError on a bad owner vector
/// and for a whole store that is itself a part, StoreFormatError/Error as write_graph_store does.
void write_part_stores(const GraphStore& whole, std::span<const std::int32_t> owner, int parts,
                       const std::filesystem::path& folder, Overwrite overwrite = Overwrite::refuse);

/// The part a part store holds, as graph_part cut it from the whole graph: the same rows, graph, halo
/// counts and sent rows. Throws ArgumentError for a store that is not a part.
GraphPart stored_graph_part(const GraphStore& store);

/// The part a part store holds, as stored. Throws ArgumentError, naming `what` and the store, for a
/// store that is not a part.
const StorePart& store_part(const GraphStore& store, const char* what);

/// The row of node `node` of the whole graph among a part store's own rows, or -1 when another part
/// owns it.
Index own_row(const GraphStore& store, Index node);

}  // namespace edgewise
