#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "edgewise/core/error.hpp"
#include "edgewise/io/node_index.hpp"

namespace edgewise {

std::string_view NodeIndex::name(Index id) const {
  if (id < 0 || id >= size()) throw std::out_of_range("node id " + std::to_string(id) + " out of range");
  const auto k = static_cast<std::size_t>(id);
  const std::size_t begin = k == 0 ? 0 : name_ends_[k - 1];
  return std::string_view(text_).substr(begin, name_ends_[k] - begin);
}

std::vector<std::string> NodeIndex::names() const {
  std::vector<std::string> all;
  all.reserve(name_ends_.size());
  for (Index id = 0; id < size(); ++id) all.emplace_back(name(id));
  return all;
}

// Linear probing from the name's hash: the slot that holds `name`'s id, or the empty slot where it
// would go. The table is never full, so the search ends.
std::size_t NodeIndex::slot_of(std::string_view name) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = std::hash<std::string_view>{}(name) & mask;
  while (slots_[slot] >= 0 && this->name(slots_[slot]) != name) slot = (slot + 1) & mask;
  return slot;
}

void NodeIndex::grow_table() {
  slots_.assign(std::max<std::size_t>(16, 2 * slots_.size()), -1);
  for (Index id = 0; id < size(); ++id) slots_[slot_of(name(id))] = static_cast<NodeId>(id);
}

Index NodeIndex::add(std::string_view name) {
  if (slots_.empty()) grow_table();
  NodeId& slot = slots_[slot_of(name)];
  if (slot >= 0) return slot;
  const Index id = size();
  if (id == std::numeric_limits<NodeId>::max()) throw GraphError("node index: more than 2^31 - 1 distinct nodes");
  slot = static_cast<NodeId>(id);
  text_.append(name);
  name_ends_.push_back(text_.size());
  if (2 * name_ends_.size() > slots_.size()) grow_table();
  return id;
}

std::optional<Index> NodeIndex::find(std::string_view name) const {
  if (slots_.empty()) return std::nullopt;
  const NodeId id = slots_[slot_of(name)];
  if (id < 0) return std::nullopt;
  return id;
}

}  // namespace edgewise
