//===- Sequential.h - A chain of layers -------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// nn::Sequential: layers applied in order. A layer is anything callable as
// Tensor(const Tensor &): a module (Linear, Conv2d, BatchNorm2d, ...), a
// lambda, a function. Modules are moved onto the heap, so their Variables
// stay put while an optimizer holds them; parameters() concatenates the
// layers' parameters() and setTraining() reaches every layer that has it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_SEQUENTIAL_H
#define LAZYC_NN_SEQUENTIAL_H

#include "lazyc/API/Ops.h"
#include "lazyc/API/Variable.h"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lazyc::nn {

namespace detail {
/// Whether Layer has parameters() returning a parameter list, and
/// setTraining(bool) (C++17 detection: public headers stay C++17).
template <typename Layer, typename = void>
struct HasParameters : std::false_type {};
template <typename Layer>
struct HasParameters<Layer, std::enable_if_t<std::is_convertible_v<
                                decltype(std::declval<Layer &>().parameters()),
                                std::vector<Variable *>>>> : std::true_type {};
template <typename Layer, typename = void>
struct HasSetTraining : std::false_type {};
template <typename Layer>
struct HasSetTraining<
    Layer, std::void_t<decltype(std::declval<Layer &>().setTraining(true))>>
    : std::true_type {};
} // namespace detail

class Sequential {
public:
  Sequential() = default;
  /// Layers in order: `Sequential net(Conv2d(...), relu, Linear(...))`.
  template <typename First, typename... Rest,
            typename = std::enable_if_t<
                sizeof...(Rest) != 0 ||
                !std::is_same_v<std::decay_t<First>, Sequential>>>
  explicit Sequential(First &&first, Rest &&...rest) {
    add(std::forward<First>(first));
    (add(std::forward<Rest>(rest)), ...);
  }
  Sequential(Sequential &&other) noexcept : stack(std::move(other.stack)) {
    other.stack.clear();
  }
  Sequential &operator=(Sequential &&other) noexcept {
    if (this != &other) {
      clear();
      stack = std::move(other.stack);
      other.stack.clear();
    }
    return *this;
  }
  Sequential(const Sequential &) = delete;
  Sequential &operator=(const Sequential &) = delete;
  ~Sequential() { clear(); }

  /// Appends a layer (moved or copied in); returns it where it now lives.
  template <typename Layer> std::decay_t<Layer> &add(Layer &&layer) {
    using Stored = std::decay_t<Layer>;
    auto *holder = new Holder<Stored>(std::forward<Layer>(layer));
    stack.push_back(holder);
    return holder->layer;
  }
  /// A plain function such as `lazyc::relu` (its defaulted location
  /// parameter makes it a two-argument function).
  Sequential &add(Tensor (*function)(const Tensor &, Where)) {
    add([function](const Tensor &x) { return function(x, Where::current()); });
    return *this;
  }

  Tensor forward(const Tensor &x) {
    Tensor h = x;
    for (Entry *entry : stack)
      h = entry->call(h);
    return h;
  }
  Tensor operator()(const Tensor &x) { return forward(x); }

  /// Every layer's parameters, in layer order.
  std::vector<Variable *> parameters() {
    std::vector<Variable *> all;
    for (Entry *entry : stack)
      for (Variable *parameter : entry->parameters())
        all.push_back(parameter);
    return all;
  }
  /// Switches every layer with a setTraining(bool) (BatchNorm2d, Dropout,
  /// a nested Sequential) between training and evaluation.
  void setTraining(bool training) {
    for (Entry *entry : stack)
      entry->setTraining(training);
  }

  size_t size() const { return stack.size(); }
  /// Layer i as its type, or nullptr if it is of another type.
  template <typename Layer> Layer *get(size_t i) {
    Entry *entry = stack.at(i);
    if (entry->tag() != tagOf<Layer>())
      return nullptr;
    return &static_cast<Holder<Layer> *>(entry)->layer;
  }

private:
  /// A distinct address per layer type (no RTTI needed).
  template <typename Layer> static const void *tagOf() {
    static const char tag = 0;
    return &tag;
  }
  struct Entry {
    virtual ~Entry() = default;
    virtual Tensor call(const Tensor &x) = 0;
    virtual std::vector<Variable *> parameters() = 0;
    virtual void setTraining(bool training) = 0;
    virtual const void *tag() const = 0;
  };
  template <typename Layer> struct Holder final : Entry {
    template <typename Argument>
    explicit Holder(Argument &&argument)
        : layer(std::forward<Argument>(argument)) {}
    Tensor call(const Tensor &x) override { return layer(x); }
    std::vector<Variable *> parameters() override {
      if constexpr (detail::HasParameters<Layer>::value)
        return layer.parameters();
      else
        return {};
    }
    void setTraining(bool training) override {
      if constexpr (detail::HasSetTraining<Layer>::value)
        layer.setTraining(training);
      else
        (void)training;
    }
    const void *tag() const override { return tagOf<Layer>(); }
    Layer layer;
  };
  void clear() {
    for (Entry *entry : stack)
      delete entry;
    stack.clear();
  }
  /// Owned; on the heap so that layers (and their Variables) never move.
  std::vector<Entry *> stack;
};

} // namespace lazyc::nn

#endif // LAZYC_NN_SEQUENTIAL_H
