//===- OnnxConformance.cpp - ONNX's backend node tests through lazyc ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Runs every test of ONNX's backend test data (Debian's libonnx-testdata:
// one directory per test, a model.onnx and test_data_set_N/ of input_*.pb
// and output_*.pb TensorProtos, the outputs computed by ONNX's reference
// implementation in numpy) through lazyc::onnx::load, lazily or eagerly,
// and compares each output with the stored one.
//
// Tolerance: ONNX's own backend runner's (onnx/backend/test/runner:
// numpy.testing.assert_allclose with rtol 1e-3, atol 1e-7): the stored
// outputs are numpy's, in float32 or float64, and lazyc computes in the
// same precision with other (vectorized, reassociated) orders of
// operations and approximations of transcendentals accurate to a few ulps.
// Float16 outputs get 4 units of float16 rounding (rtol 2^-9, about 2e-3:
// 1e-3 is 2 units there, less than two orders of float16 sums differ by).
// A Float32 output's absolute tolerance is at least 4 float32 units of its
// largest element: an element that sums terms of that size to near 0 (an
// inverse DFT's) is only that exact, in numpy's float32 as in lazyc.
// Integers and booleans must match exactly; NaN matches NaN.
//
// Each test is PASS, UNSUPPORTED (the model uses an op, attribute or dtype
// lazyc does not map: the Error says "not supported", "does not support"
// or "lacks"; listed with the reason) or FAIL (anything else: a wrong
// value, a wrong shape, another Error). The exit status is 1 if any test
// fails; the summary counts each kind and the reasons. A few tests store
// outputs that contradict their own model (kWrongData, each with the
// evidence): they run, must disagree as stated, and count as WRONG DATA,
// neither pass nor fail. Tests whose outputs are numpy's random draws
// (kRandomOutputs) are checked for what the op promises instead (values,
// consistency, counts within 5 standard deviations) and count as RANDOM.
//
// --onnx-release names the ONNX release the data comes from (default 1.12,
// Debian's), which decides the entries of kWrongData that apply.
//
//   LazycOnnxConformance --data DIR [--onnx-release R] [--eager]
//                        [--filter TEXT] [--verbose]
//
//===----------------------------------------------------------------------===//

#include "lazyc/Onnx/Onnx.h"

#include "lazyc/API/Ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace lazyc;
namespace fs = std::filesystem;

namespace {

enum class Outcome { Pass, Unsupported, Fail, WrongData, Random };

std::string checkDropout(const std::vector<Tensor> &inputs,
                         const std::vector<Tensor> &outputs);
std::string checkBernoulli(const std::vector<Tensor> &inputs,
                           const std::vector<Tensor> &outputs);

/// Tests whose outputs are draws of numpy's generator, which no other
/// generator reproduces: training-mode Dropout with a nonzero ratio, and
/// Bernoulli. Their outputs are checked for what the op promises instead.
using Check = std::string (*)(const std::vector<Tensor> &,
                              const std::vector<Tensor> &);
const std::map<std::string, Check> kRandomOutputs = {
    {"test_training_dropout", checkDropout},
    {"test_training_dropout_default", checkDropout},
    {"test_training_dropout_default_mask", checkDropout},
    {"test_training_dropout_mask", checkDropout},
    {"test_bernoulli", checkBernoulli},
    {"test_bernoulli_double", checkBernoulli},
    {"test_bernoulli_expanded", checkBernoulli},
    {"test_bernoulli_double_expanded", checkBernoulli},
    {"test_bernoulli_seed", checkBernoulli},
    {"test_bernoulli_seed_expanded", checkBernoulli}};

/// Every output is 0 or 1, 0 where the probability is 0 and 1 where it is
/// 1, and the count of ones is within 5 standard deviations of the sum of
/// the probabilities.
std::string checkBernoulli(const std::vector<Tensor> &inputs,
                           const std::vector<Tensor> &outputs) {
  std::vector<double> p = inputs[0].toVector<double>();
  std::vector<double> y = outputs[0].toVector<double>();
  double ones = 0, mean = 0, variance = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (y[i] != 0 && y[i] != 1)
      return "element " + std::to_string(i) + " is " + std::to_string(y[i]) +
             ", not 0 or 1";
    if ((p[i] == 0 && y[i] != 0) || (p[i] == 1 && y[i] != 1))
      return "element " + std::to_string(i) + " is " + std::to_string(y[i]) +
             " at probability " + std::to_string(p[i]);
    ones += y[i];
    mean += p[i];
    variance += p[i] * (1 - p[i]);
  }
  if (std::abs(ones - mean) > 5 * std::sqrt(variance) + 1)
    return std::to_string(int(ones)) + " ones where " + std::to_string(mean) +
           " are expected";
  return "";
}

/// y is 0 where dropped and x / (1 - ratio) where kept (the mask, if
/// returned, says which), and the kept fraction is within 5 standard
/// deviations of 1 - ratio. "" if so, else what is wrong.
std::string checkDropout(const std::vector<Tensor> &inputs,
                         const std::vector<Tensor> &outputs) {
  std::vector<double> x = inputs[0].toVector<double>();
  double ratio = inputs.size() > 1 ? inputs[1].toVector<double>()[0] : 0.5;
  std::vector<double> y = outputs[0].toVector<double>();
  std::vector<double> mask =
      outputs.size() > 1 ? outputs[1].toVector<double>() : y;
  double kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double scaled = x[i] / (1 - ratio);
    bool keeps = outputs.size() > 1 ? mask[i] != 0 : y[i] != 0;
    double want = keeps ? scaled : 0;
    if (std::abs(y[i] - want) > 1e-6 + 1e-5 * std::abs(want))
      return "element " + std::to_string(i) + " is " + std::to_string(y[i]) +
             ", neither 0 nor x / (1 - ratio) as its mask says";
    kept += keeps;
  }
  double n = double(x.size()), p = 1 - ratio;
  if (std::abs(kept - n * p) > 5 * std::sqrt(n * p * (1 - p)) + 1)
    return "kept " + std::to_string(int(kept)) + " of " +
           std::to_string(int(n)) + " elements at ratio " +
           std::to_string(ratio);
  return "";
}

/// Tests whose stored data the model does not define: why, the failure
/// that must show it (a value that differs, or an input the model
/// rejects), and the ONNX releases whose data has the defect (a test's data
/// changes between releases).
struct WrongData {
  const char *name;
  const char *releases;
  const char *why;
  const char *symptom;
};
constexpr const char *kDiffersInAValue = ": element ";
constexpr const char *kInputShapeRejected = "is declared";
constexpr const char *kTruncatedBFloat16 =
    "its outputs are the inputs' upper 16 bits (cast.py truncates), where a "
    "cast rounds to the nearest bfloat16";
// The BFLOAT16 CastLike models of ONNX 1.12 declare `like` as [3, 4]; their
// data holds one element (the other CastLike models declare [1]).
constexpr const char *kLikeDeclared34 =
    "its model declares input 'like' [3, 4], its data is [1]";
// ONNX's reference wraps the requantized int8 product (numpy's astype)
// where the op saturates; ONNX Runtime saturates as lazyc does (checked
// with tools/onnxruntime-run on these models).
constexpr const char *kWrappedInt8 =
    "its outputs wrap the requantized product around int8 where QLinearMatMul "
    "saturates (ONNX Runtime 1.30 gives lazyc's -128 too)";
const WrongData kWrongData[] = {
    {"test_adam_multiple", "1.12",
     "its outputs were computed with epsilon = 1e-2 (adam.py, "
     "export_adam_multiple), which the node does not set: Adam's default "
     "is 1e-6",
     kDiffersInAValue},
    {"test_cast_FLOAT_to_BFLOAT16", "1.12 1.16", kTruncatedBFloat16,
     kDiffersInAValue},
    {"test_castlike_FLOAT_to_BFLOAT16", "1.12", kLikeDeclared34,
     kInputShapeRejected},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", "1.12", kLikeDeclared34,
     kInputShapeRejected},
    {"test_castlike_BFLOAT16_to_FLOAT", "1.12", kLikeDeclared34,
     kInputShapeRejected},
    {"test_castlike_BFLOAT16_to_FLOAT_expanded", "1.12", kLikeDeclared34,
     kInputShapeRejected},
    {"test_castlike_FLOAT_to_BFLOAT16", "1.16", kTruncatedBFloat16,
     kDiffersInAValue},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", "1.16", kTruncatedBFloat16,
     kDiffersInAValue},
    // Fixed in ONNX 1.14 (onnx/onnx#4769).
    {"test_col2im_pads", "1.13",
     "its output element [0, 0, 0, 4] is 14, where the blocks its input "
     "holds add 10 + 14 = 24 there (the stored output was computed from an "
     "input with 0 in place of 10)",
     kDiffersInAValue},
    {"test_qlinearmatmul_2D_int8_float16", "1.16", kWrappedInt8,
     kDiffersInAValue},
    {"test_qlinearmatmul_2D_int8_float32", "1.16", kWrappedInt8,
     kDiffersInAValue},
    {"test_qlinearmatmul_3D_int8_float16", "1.16", kWrappedInt8,
     kDiffersInAValue},
    {"test_qlinearmatmul_3D_int8_float32", "1.16", kWrappedInt8,
     kDiffersInAValue},
    {"test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_"
     "is_True",
     "1.16",
     "its outputs count the windows' ceil_mode overhang as padding "
     "(averagepool.py pads the input by it); ONNX Runtime 1.30 counts only "
     "the pads, as lazyc and PyTorch do, and agrees with lazyc to 1.2e-7",
     kDiffersInAValue},
};

/// The entry for `name` in `release`'s data, if its data is wrong.
const WrongData *wrongData(const std::string &name,
                           const std::string &release) {
  for (const WrongData &entry : kWrongData) {
    if (name != entry.name)
      continue;
    std::string releases = std::string(" ") + entry.releases + " ";
    if (releases.find(" " + release + " ") != std::string::npos)
      return &entry;
  }
  return nullptr;
}

/// numpy has no bfloat16: the BFLOAT16 tests store their bfloat16 values'
/// bits in UINT16 tensors. Such a tensor where the model declares BFLOAT16
/// becomes the bfloat16 values its bits spell (exactly, through Float32).
Tensor asDeclared(const Tensor &stored, DType declared) {
  if (declared != DType::BFloat16 || stored.dtype() != DType::UInt16)
    return stored;
  std::vector<uint16_t> bits = stored.toVector<uint16_t>();
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    uint32_t word = uint32_t(bits[i]) << 16;
    std::memcpy(&values[i], &word, 4);
  }
  return cast(Tensor::fromVector<float>(values, stored.shape()),
              DType::BFloat16);
}

struct Result {
  Outcome outcome;
  std::string reason;
};

bool isUnsupported(const std::string &message) {
  return message.find("not supported") != std::string::npos ||
         message.find("does not support") != std::string::npos ||
         message.find("lacks") != std::string::npos;
}

std::vector<fs::path> numbered(const fs::path &directory,
                               const std::string &prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path file = directory / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(file))
      return files;
    files.push_back(file);
  }
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// Float16 outputs: 4 units of float16's rounding (2^-11 relative), where
/// ONNX's rtol 1e-3 is 2: a float16 graph rounds every intermediate to
/// float16, and two orders of the same sums differ by a few units.
constexpr double kHalfRtol = 4.0 / 2048;
/// 4 units of float32's rounding (2^-24 relative).
constexpr double kFloatCancellation = 4.0 / 16777216;

/// "" if `actual` matches `expected`, else what differs.
std::string compare(const Tensor &actual, const Tensor &expected) {
  if (actual.dtype() != expected.dtype())
    return std::string("dtype ") + dtypeName(actual.dtype()) + ", expected " +
           dtypeName(expected.dtype());
  if (actual.shape() != expected.shape())
    return "shape " + shapeText(actual.shape()) + ", expected " +
           shapeText(expected.shape());
  DType dtype = expected.dtype();
  bool floating = dtype == DType::Float32 || dtype == DType::Float64 ||
                  dtype == DType::Float16 || dtype == DType::BFloat16;
  std::vector<double> got = actual.toVector<double>();
  std::vector<double> want = expected.toVector<double>();
  // Float32 elements that are sums cancelling to near 0 carry rounding of
  // the size of the terms: 4 float32 units of the largest output.
  double absolute = 1e-7;
  if (dtype == DType::Float32) {
    double largest = 0;
    for (double value : want)
      if (std::isfinite(value))
        largest = std::max(largest, std::abs(value));
    absolute = std::max(absolute, largest * kFloatCancellation);
  }
  for (size_t i = 0; i < want.size(); ++i) {
    bool same;
    if (!floating)
      same = got[i] == want[i];
    else if (std::isnan(want[i]))
      same = std::isnan(got[i]);
    else if (std::isinf(want[i]))
      same = got[i] == want[i];
    else
      same = std::abs(got[i] - want[i]) <=
             absolute + (dtype == DType::Float16 ? kHalfRtol : 1e-3) *
                            std::abs(want[i]);
    if (!same) {
      char text[160];
      std::snprintf(text, sizeof(text), "element %zu is %.9g, expected %.9g", i,
                    got[i], want[i]);
      return text;
    }
  }
  return "";
}

Result runTest(const fs::path &directory, bool eager) {
  try {
    onnx::Model model = onnx::load((directory / "model.onnx").string());
    std::vector<fs::path> sets;
    for (const auto &entry : fs::directory_iterator(directory))
      if (entry.is_directory() &&
          entry.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    for (const fs::path &set : sets) {
      std::vector<Tensor> inputs, expected;
      for (const fs::path &file : numbered(set, "input_")) {
        size_t i = inputs.size();
        Tensor stored = onnx::loadTensor(file.string());
        inputs.push_back(i < model.inputs().size()
                             ? asDeclared(stored, model.inputs()[i].dtype)
                             : stored);
      }
      for (const fs::path &file : numbered(set, "output_")) {
        size_t i = expected.size();
        Tensor stored = onnx::loadTensor(file.string());
        expected.push_back(i < model.outputs().size()
                               ? asDeclared(stored, model.outputs()[i].dtype)
                               : stored);
      }
      std::vector<Tensor> outputs;
      if (eager) {
        EagerScope scope;
        outputs = model(inputs);
      } else {
        outputs = model(inputs);
      }
      if (outputs.size() != expected.size())
        return {Outcome::Fail, std::to_string(outputs.size()) +
                                   " outputs, expected " +
                                   std::to_string(expected.size())};
      if (kRandomOutputs.count(directory.filename().string())) {
        for (size_t i = 0; i < outputs.size(); ++i)
          if (outputs[i].shape() != expected[i].shape() ||
              outputs[i].dtype() != expected[i].dtype())
            return {Outcome::Fail, "output " + std::to_string(i) +
                                       " differs in shape or dtype"};
        std::string wrong =
            kRandomOutputs.at(directory.filename().string())(inputs, outputs);
        if (!wrong.empty())
          return {Outcome::Fail, set.filename().string() + ": " + wrong};
        continue;
      }
      for (size_t i = 0; i < outputs.size(); ++i) {
        std::string difference = compare(outputs[i], expected[i]);
        if (!difference.empty())
          return {Outcome::Fail, set.filename().string() + " output " +
                                     std::to_string(i) + ": " + difference};
      }
    }
    if (kRandomOutputs.count(directory.filename().string()))
      return {Outcome::Random, "random draws: checked for the op's promises, "
                               "not compared"};
    return {Outcome::Pass, ""};
  } catch (const Error &error) {
    std::string message = error.what();
    return {isUnsupported(message) ? Outcome::Unsupported : Outcome::Fail,
            message};
  } catch (const std::exception &error) {
    return {Outcome::Fail, std::string("exception: ") + error.what()};
  }
}

/// The reason an unsupported test gives, without the file and node names:
/// "Resize: lazyc does not support this op", or what the model as a whole
/// uses ("imports opset 27 ...", "input: 'x' has element type ...").
std::string reasonKey(const std::string &message) {
  size_t file = message.find("model.onnx: ");
  if (file != std::string::npos && message.find("node ") != file + 12)
    return message.substr(file + 12);
  size_t open = message.find(" (");
  size_t colon = message.rfind("): ");
  if (open != std::string::npos && colon != std::string::npos && colon > open) {
    std::string op =
        message.substr(open + 2, message.find_first_of(",)", open) - open - 2);
    return op + ": " + message.substr(colon + 3);
  }
  return message;
}

} // namespace

int main(int argc, char **argv) {
  std::string data, filter, release = "1.12";
  bool eager = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--data" && i + 1 < argc)
      data = argv[++i];
    else if (flag == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else if (flag == "--onnx-release" && i + 1 < argc)
      release = argv[++i];
    else if (flag == "--eager")
      eager = true;
    else if (flag == "--verbose")
      verbose = true;
    else {
      std::fprintf(stderr,
                   "usage: %s --data DIR [--onnx-release 1.12] [--eager] "
                   "[--filter TEXT] [--verbose]\n",
                   argv[0]);
      return 2;
    }
  }
  if (data.empty() || !fs::is_directory(data)) {
    std::fprintf(stderr, "%s: no test directory '%s'\n", argv[0], data.c_str());
    return 2;
  }
  std::vector<fs::path> tests;
  for (const auto &entry : fs::directory_iterator(data))
    if (entry.is_directory() &&
        entry.path().filename().string().find(filter) != std::string::npos)
      tests.push_back(entry.path());
  std::sort(tests.begin(), tests.end());

  std::map<Outcome, int> counts;
  std::map<std::string, int> unsupportedReasons;
  std::vector<std::string> failures;
  for (const fs::path &test : tests) {
    Result result = runTest(test, eager);
    std::string name = test.filename().string();
    if (const WrongData *wrong = wrongData(name, release)) {
      const WrongData &data = *wrong;
      result = result.outcome == Outcome::Fail &&
                       result.reason.find(data.symptom) != std::string::npos
                   ? Result{Outcome::WrongData, data.why}
                   : Result{Outcome::Fail,
                            std::string("listed as wrong data (") + data.why +
                                "), but it does not fail so: " + result.reason};
    }
    ++counts[result.outcome];
    if (result.outcome == Outcome::Unsupported)
      ++unsupportedReasons[reasonKey(result.reason)];
    if (result.outcome == Outcome::Fail)
      failures.push_back(name + ": " + result.reason);
    if (verbose)
      std::printf("%s %s%s%s\n",
                  result.outcome == Outcome::Pass          ? "PASS"
                  : result.outcome == Outcome::Unsupported ? "UNSUPPORTED"
                  : result.outcome == Outcome::WrongData   ? "WRONG DATA"
                  : result.outcome == Outcome::Random      ? "RANDOM"
                                                           : "FAIL",
                  name.c_str(), result.reason.empty() ? "" : ": ",
                  result.reason.c_str());
  }
  std::printf("ONNX backend tests in %s (%s): %zu tests, %d pass, %d "
              "unsupported, %d fail, %d with wrong data, %d random (%.1f%% "
              "pass)\n",
              data.c_str(), eager ? "eager" : "lazy", tests.size(),
              counts[Outcome::Pass], counts[Outcome::Unsupported],
              counts[Outcome::Fail], counts[Outcome::WrongData],
              counts[Outcome::Random],
              tests.empty() ? 0.0
                            : 100.0 * counts[Outcome::Pass] / tests.size());
  // Strings, sequences and optionals are outside lazyc (tensors of numbers
  // only): the share of the other tests that pass.
  int outOfScope = 0;
  for (const auto &[reason, count] : unsupportedReasons)
    for (const char *kind : {"STRING", "Sequence", "Optional", "not a tensor",
                             "TfIdfVectorizer", "StringNormalizer"})
      if (reason.find(kind) != std::string::npos) {
        outOfScope += count;
        break;
      }
  size_t inScope = tests.size() - size_t(outOfScope);
  std::printf("of the %zu tests without strings, sequences or optionals: "
              "%.1f%% pass\n",
              inScope,
              inScope ? 100.0 * counts[Outcome::Pass] / double(inScope) : 0.0);
  std::vector<std::pair<int, std::string>> reasons;
  for (const auto &[reason, count] : unsupportedReasons)
    reasons.push_back({count, reason});
  std::sort(reasons.rbegin(), reasons.rend());
  std::printf("unsupported, by reason:\n");
  for (const auto &[count, reason] : reasons)
    std::printf("  %4d  %s\n", count, reason.c_str());
  if (!failures.empty()) {
    std::printf("FAILED:\n");
    for (const std::string &failure : failures)
      std::printf("  %s\n", failure.c_str());
  }
  return failures.empty() ? 0 : 1;
}
