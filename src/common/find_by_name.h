#pragma once
// The entry of a preset list whose `name` is the one asked for; otherwise an InputError naming the field and
// listing the names there are.
#include <string>
#include <vector>

#include "common/input_error.h"

namespace kvlab {

template <class Item>
const Item& find_by_name(const std::vector<Item>& items, const std::string& name, const std::string& field) {
  std::string known;
  std::vector<std::string> names;
  for (const Item& item : items) {
    if (item.name == name) return item;
    known += (known.empty() ? "" : ", ") + item.name;
    names.push_back(item.name);
  }
  throw_range({field, "\"" + name + "\"", one_of(names)}, "must be one of " + known + " (got \"" + name + "\")");
}

}  // namespace kvlab
