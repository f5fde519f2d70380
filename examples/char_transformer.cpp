//===- char_transformer.cpp - Train a small GPT on characters with lazyc --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A GPT-2-style character model: token and learned position embeddings,
// then pre-LayerNorm blocks (causal nn::MultiHeadAttention and an MLP with
// GELU, each added to the residual stream), a final LayerNorm and an output
// projection tied to the token embedding (GPT-2's LM head). 2 layers, 4
// heads, d = 128, context 64 by default; `--layers 12 --heads 12 --dim 768
// --context 128` is GPT-2 small's shape. It trains as GPT-2 is trained:
// AdamW with weight decay 0.1 on the matrices (not on biases, norms or
// position embeddings: parameter groups), the gradients clipped to a global
// norm of 1.0; on the text of every license that Debian's base-files ships
// (/usr/share/common-licenses/*, about 300 kB), or on `--text FILE`, on
// random windows of the text.
//
// Each step (forward, backward, Adam) is one cached trace (the model's and
// Adam's initial values are computed before it, in a trace of their own),
// which lazyc cuts at its layers (repeated blocks); `--mark-blocks` cuts
// there on request instead, each layer in a lazyc::CompileBlock. The program
// counts the traces compiled after the first step (none) and fails if there
// are any. Every `--sample-every` steps it prints the mean loss
// and a continuation of a window of the text, sampled one character at a time:
// the next character's distribution is softmax(logits / temperature) of
// the model's last position, and the sample is the number of entries of its
// cumsum below a seeded uniform number (computed on the device; the
// uniform number is data, so every character reuses one compiled trace).
//
//   lazyc-char-transformer [--text FILE] [--steps N] [--batch N]
//                          [--layers N] [--heads N] [--dim N] [--context N]
//                          [--lr X] [--weight-decay X] [--clip X]
//                          [--sample-every N] [--sample-length N]
//                          [--temperature X] [--seed N] [--device cpu|cuda]
//                          [--mark-blocks]
//
//===----------------------------------------------------------------------===//

#include <lazyc/nn.h>

#include "ExampleSupport.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

using namespace lazyc;
using lazyc::examples::ProgressBar;

namespace {

const char *const licenseFolder = "/usr/share/common-licenses";

struct Settings {
  std::string textFile; ///< empty: the common licenses
  int64_t steps = 200;
  int64_t batch = 16;
  int64_t layers = 2, heads = 4, dim = 128, context = 64;
  double learningRate = 2e-3;
  double weightDecay = 0.1; ///< of the matrices (AdamW's, decoupled)
  double clip = 1.0;        ///< the gradients' global norm; 0: no clipping
  int64_t sampleEvery = 50;
  int64_t sampleLength = 60;
  double temperature = 0.8;
  int64_t seed = 1;
  std::string device = "cpu";
  /// Each layer in a CompileBlock (the repeated-block search finds them
  /// without one; LAZYC_REPEATED_BLOCKS=0 turns the search off).
  bool markBlocks = false;
  /// Mixed precision: the forward pass under AutocastScope(BFloat16 or
  /// Float16); Float16 adds a GradScaler.
  std::optional<DType> autocast;
};

[[noreturn]] void usage(const char *program, const std::string &problem) {
  std::cerr << program << ": " << problem << "\n"
            << "usage: " << program
            << " [--text FILE] [--steps N] [--batch N] [--layers N]"
               " [--heads N] [--dim N] [--context N] [--lr X]"
               " [--weight-decay X] [--clip X]"
               " [--sample-every N] [--sample-length N] [--temperature X]"
               " [--seed N] [--device cpu|cuda] [--mark-blocks]"
               " [--autocast bf16|f16]\n";
  std::exit(2);
}

Settings parse(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h")
      usage(argv[0], "trains a character-level transformer on a text");
    if (flag == "--mark-blocks") {
      settings.markBlocks = true;
      continue;
    }
    if (i + 1 >= argc)
      usage(argv[0], "missing value after " + flag);
    std::string value = argv[++i];
    auto number = [&](double low) {
      std::optional<double> parsed = examples::parseNumber(value, low);
      if (!parsed)
        usage(argv[0], "bad value for " + flag + ": " + value);
      return *parsed;
    };
    auto integer = [&](double low) {
      return static_cast<int64_t>(number(low));
    };
    if (flag == "--text")
      settings.textFile = value;
    else if (flag == "--steps")
      settings.steps = integer(1);
    else if (flag == "--batch")
      settings.batch = integer(1);
    else if (flag == "--layers")
      settings.layers = integer(1);
    else if (flag == "--heads")
      settings.heads = integer(1);
    else if (flag == "--dim")
      settings.dim = integer(1);
    else if (flag == "--context")
      settings.context = integer(2);
    else if (flag == "--lr")
      settings.learningRate = number(0);
    else if (flag == "--weight-decay")
      settings.weightDecay = number(0);
    else if (flag == "--clip")
      settings.clip = number(0);
    else if (flag == "--sample-every")
      settings.sampleEvery = integer(1);
    else if (flag == "--sample-length")
      settings.sampleLength = integer(0);
    else if (flag == "--temperature")
      settings.temperature = number(1e-3);
    else if (flag == "--seed")
      settings.seed = integer(0);
    else if (flag == "--device" && (value == "cpu" || value == "cuda"))
      settings.device = value;
    else if (flag == "--autocast" && (value == "bf16" || value == "f16"))
      settings.autocast = value == "bf16" ? DType::BFloat16 : DType::Float16;
    else
      usage(argv[0], "unknown option " + flag + " " + value);
  }
  if (settings.dim % settings.heads != 0)
    usage(argv[0], "--dim must be a multiple of --heads");
  return settings;
}

/// The text to train on: `file`, or every regular file (links skipped, so
/// nothing twice) in /usr/share/common-licenses in name order.
std::string loadText(const std::string &file, std::string &source) {
  auto slurp = [](const std::string &path, std::string &out) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      return false;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    out += buffer.str();
    return true;
  };
  std::string text;
  if (!file.empty()) {
    if (!slurp(file, text))
      throw Error("loadText", "cannot read " + file, Where::current());
    source = file;
    return text;
  }
  std::vector<std::string> names;
  if (DIR *folder = opendir(licenseFolder)) {
    while (dirent *entry = readdir(folder)) {
      std::string path = std::string(licenseFolder) + "/" + entry->d_name;
      struct stat info;
      if (lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode))
        names.push_back(path);
    }
    closedir(folder);
  }
  std::sort(names.begin(), names.end());
  for (const std::string &path : names)
    slurp(path, text);
  if (text.empty())
    throw Error("loadText",
                std::string("no text in ") + licenseFolder +
                    " (Debian's base-files ships it); pass --text FILE",
                Where::current());
  source = std::string(licenseFolder) + "/* (" + std::to_string(names.size()) +
           " files)";
  return text;
}

/// One pre-LayerNorm transformer block:
/// h = x + attention(ln1(x)); out = h + fc2(gelu(fc1(ln2(h)))).
class Block {
public:
  Block(int64_t dim, int64_t heads, int64_t seed, const std::string &name)
      : ln1({dim}, 1e-5, true, DType::Float32, name + ".ln1"),
        ln2({dim}, 1e-5, true, DType::Float32, name + ".ln2"),
        attention(dim, heads, seed, causalOptions(), name + ".attention"),
        fc1(dim, 4 * dim, seed + 2, name + ".fc1"),
        fc2(4 * dim, dim, seed + 3, name + ".fc2") {}

  Tensor forward(const Tensor &x) const {
    Tensor h = x + attention(ln1(x));
    return h + fc2(gelu(fc1(ln2(h))));
  }

  std::vector<Variable *> parameters() {
    std::vector<Variable *> all;
    for (auto part : {ln1.parameters(), attention.parameters(),
                      ln2.parameters(), fc1.parameters(), fc2.parameters()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }

private:
  static nn::MultiHeadAttention::Options causalOptions() {
    nn::MultiHeadAttention::Options options;
    options.causal = true;
    return options;
  }
  nn::LayerNorm ln1, ln2;
  nn::MultiHeadAttention attention;
  nn::Linear fc1, fc2;
};

/// Token and position embeddings (N(0, 0.02), as GPT-2), blocks, a final
/// LayerNorm and the output projection: the token embedding again, read
/// transposed (x tokens^T), with no bias.
class CharGpt {
public:
  CharGpt(int64_t vocabulary, const Settings &settings)
      : context(settings.context), dim(settings.dim),
        markBlocks(settings.markBlocks),
        tokens(randomNormal({vocabulary, settings.dim}, 0, 0.02, settings.seed),
               "tokens"),
        positions(randomNormal({settings.context, settings.dim}, 0, 0.02,
                               settings.seed + 1),
                  "positions"),
        lnFinal({settings.dim}, 1e-5, true, DType::Float32, "ln_final"),
        head(tokens, /*transposed=*/true, noBias(), "head") {
    (void)vocabulary;
    blocks.reserve(settings.layers); // they never move once made
    for (int64_t i = 0; i < settings.layers; ++i)
      blocks.emplace_back(settings.dim, settings.heads,
                          settings.seed + 10 * (i + 1),
                          "block" + std::to_string(i));
  }

  /// Int32 ids [B, T] (T <= context) -> logits [B, T, vocabulary].
  Tensor forward(const Tensor &ids) const {
    int64_t length = ids.shape()[1];
    Tensor placed = positions.read();
    if (length != context)
      placed = slice(placed, {0, 0}, {length, dim});
    Tensor x = nn::embedding(tokens.read(), ids) + placed;
    for (const Block &block : blocks) {
      if (!markBlocks) {
        x = block.forward(x);
        continue;
      }
      CompileBlock marked;
      x = block.forward(x);
    }
    return head(lnFinal(x));
  }

  /// Every parameter once (the head's weight is `tokens`).
  std::vector<Variable *> parameters() {
    std::vector<Variable *> all = {&tokens, &positions};
    for (Block &block : blocks)
      for (Variable *parameter : block.parameters())
        all.push_back(parameter);
    for (auto part : {lnFinal.parameters(), head.parameters()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }

  /// AdamW's groups, as GPT-2 is trained: the matrices (the token
  /// embedding and the products' weights) decay by `weightDecay`; biases,
  /// LayerNorm scales and the position embedding do not.
  std::vector<optim::ParameterGroup> parameterGroups(double weightDecay) {
    optim::ParameterGroup decayed{{}, weightDecay}, kept{{}, 0.0};
    for (Variable *parameter : parameters())
      (parameter->shape().size() == 2 && parameter != &positions ? decayed
                                                                 : kept)
          .parameters.push_back(parameter);
    return {decayed, kept};
  }

private:
  static nn::Linear::Options noBias() {
    nn::Linear::Options options;
    options.bias = false;
    return options;
  }
  int64_t context, dim;
  bool markBlocks;
  Variable tokens, positions;
  std::vector<Block> blocks;
  nn::LayerNorm lnFinal;
  nn::Linear head;
};

/// Prints `text` with control characters as spaces or `|` (newlines), on
/// one line.
std::string printable(const std::string &text) {
  std::string out;
  for (unsigned char c : text)
    out += c == '\n' ? '|' : (c < 32 || c == 127) ? ' ' : static_cast<char>(c);
  return out;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings = parse(argc, argv);
  std::unique_ptr<DeviceScope> onDevice;
  try {
    if (settings.device == "cuda")
      onDevice = std::make_unique<DeviceScope>(Device::cuda());

    std::string source;
    std::string text = loadText(settings.textFile, source);
    // The vocabulary: the distinct bytes of the text, in byte order.
    std::vector<int32_t> idOf(256, -1);
    std::string alphabet;
    for (unsigned char c : text)
      if (idOf[c] < 0)
        idOf[c] = 0;
    for (int c = 0; c < 256; ++c)
      if (idOf[c] >= 0) {
        idOf[c] = static_cast<int32_t>(alphabet.size());
        alphabet += static_cast<char>(c);
      }
    std::vector<int32_t> ids(text.size());
    for (size_t i = 0; i < text.size(); ++i)
      ids[i] = idOf[static_cast<unsigned char>(text[i])];
    const int64_t vocabulary = static_cast<int64_t>(alphabet.size());
    const int64_t T = settings.context, B = settings.batch;
    if (static_cast<int64_t>(ids.size()) < T + 2)
      throw Error("main", "the text is shorter than the context",
                  Where::current());

    CharGpt model(vocabulary, settings);
    optim::AdamW::Options adamOptions;
    adamOptions.learningRate = settings.learningRate;
    optim::AdamW adam(model.parameterGroups(settings.weightDecay), adamOptions);
    // Float16 gradients underflow without loss scaling; BFloat16 has f32's
    // range. (A disabled scaler passes everything through.)
    optim::GradScaler::Options scalerOptions;
    scalerOptions.enabled = settings.autocast == DType::Float16;
    optim::GradScaler scaler(scalerOptions);
    // The forward pass's precision (a disabled scope changes nothing).
    DType narrow = settings.autocast.value_or(DType::BFloat16);
    bool autocasts = settings.autocast.has_value();
    // In the optimizer's order (its groups'), as step() takes gradients.
    std::vector<Variable *> parameters = adam.parameters();
    int64_t parameterCount = 0;
    for (Variable *parameter : parameters)
      parameterCount += parameter->numel();
    std::printf("text: %s, %zu characters, vocabulary %lld (ln %lld = %.3f)\n",
                source.c_str(), text.size(), static_cast<long long>(vocabulary),
                static_cast<long long>(vocabulary),
                std::log(static_cast<double>(vocabulary)));
    std::printf("GPT: %lld layers, %lld heads, d = %lld, context %lld, %lld "
                "parameters (head tied to the embedding); AdamW (lr %g, "
                "weight decay %g), clipping at %g, batch %lld x %lld tokens, "
                "%lld steps on %s%s\n",
                static_cast<long long>(settings.layers),
                static_cast<long long>(settings.heads),
                static_cast<long long>(settings.dim), static_cast<long long>(T),
                static_cast<long long>(parameterCount), settings.learningRate,
                settings.weightDecay, settings.clip, static_cast<long long>(B),
                static_cast<long long>(T),
                static_cast<long long>(settings.steps), settings.device.c_str(),
                !settings.autocast ? ""
                : *settings.autocast == DType::BFloat16
                    ? ", autocast to BFloat16"
                    : ", autocast to Float16 with loss scaling");
    std::fflush(stdout);

    std::mt19937_64 random(static_cast<uint64_t>(settings.seed));
    std::uniform_int_distribution<int64_t> start(
        0, static_cast<int64_t>(ids.size()) - T - 1);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);

    // A continuation of a window of the text, `length` characters sampled
    // one at a time from the last position's distribution.
    auto sample = [&](int64_t length) {
      int64_t from = start(random);
      std::vector<int32_t> window(ids.begin() + from, ids.begin() + from + T);
      std::string prompt, continuation;
      for (int64_t i = std::max<int64_t>(0, T - 40); i < T; ++i)
        prompt += alphabet[window[i]];
      NoGradScope noGrad;
      AutocastScope autocast(narrow, autocasts);
      for (int64_t i = 0; i < length; ++i) {
        Tensor logits = model.forward(Tensor::fromVector(window, {1, T}));
        Tensor last = reshape(slice(logits, {0, T - 1, 0}, {1, T, vocabulary}),
                              {vocabulary});
        Tensor probabilities = softmax(last * float(1 / settings.temperature));
        Tensor u = Tensor::fromVector<float>({float(uniform(random))}, {});
        Tensor below = sum(cast(cumsum(probabilities, 0) < u, DType::Int32));
        int32_t next = std::min<int32_t>(below.item<int32_t>(),
                                         static_cast<int32_t>(vocabulary - 1));
        continuation += alphabet[next];
        window.erase(window.begin());
        window.push_back(next);
      }
      return "  \"" + printable(prompt) + "\" -> \"" + printable(continuation) +
             "\"";
    };

    ProgressBar progress(settings.steps);
    std::vector<int32_t> inputs(B * T), targets(B * T);
    uint64_t steadyCompiles = 0, steadySteps = 0;
    double windowLoss = 0, firstLoss = 0, lastMean = 0;
    int64_t windowSteps = 0;
    double trainSeconds = 0;
    auto windowStart = std::chrono::steady_clock::now();
    double steadySeconds = 0; // the steps after the first
    double firstStepSeconds = 0;
    for (int64_t step = 1; step <= settings.steps; ++step) {
      auto stepStart = std::chrono::steady_clock::now();
      for (int64_t b = 0; b < B; ++b) {
        int64_t from = start(random);
        std::copy(ids.begin() + from, ids.begin() + from + T,
                  inputs.begin() + b * T);
        std::copy(ids.begin() + from + 1, ids.begin() + from + T + 1,
                  targets.begin() + b * T);
      }
      Tensor x = Tensor::fromVector(inputs, {B, T});
      Tensor y = Tensor::fromVector(targets, {B * T});
      uint64_t compiledBefore = metrics().tracesCompiled;
      Tensor loss;
      {
        GradientTape tape;
        {
          AutocastScope autocast(narrow, autocasts);
          loss = nn::crossEntropy(
              reshape(model.forward(x), {B * T, vocabulary}), y);
        }
        std::vector<Tensor> gradients = scaler.unscale(
            tape.gradient(scaler.scale(loss), nn::refs(parameters)));
        if (settings.clip > 0)
          optim::clipGradNorm(gradients, settings.clip);
        scaler.step(adam, gradients);
      }
      lazyc::sync(); // forward, backward, clipping and AdamW: one trace
      double value = loss.item<float>();
      if (step == 1) {
        firstLoss = value;
        firstStepSeconds = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - stepStart)
                               .count();
      }
      if (step > 1) {
        steadyCompiles += metrics().tracesCompiled - compiledBefore;
        ++steadySteps;
        steadySeconds += std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - stepStart)
                             .count();
      }
      windowLoss += value;
      ++windowSteps;
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - windowStart)
                           .count();
      char suffix[96];
      std::snprintf(suffix, sizeof suffix, "loss %.4f, %.2f steps/s",
                    windowLoss / windowSteps, windowSteps / seconds);
      progress.update(step, suffix);
      if (step % settings.sampleEvery == 0 || step == settings.steps) {
        trainSeconds += seconds;
        lastMean = windowLoss / windowSteps;
        char line[160];
        std::snprintf(line, sizeof line,
                      "step %lld: mean loss %.4f over the last %lld steps "
                      "(%.2f steps/s); a sample:",
                      static_cast<long long>(step), lastMean,
                      static_cast<long long>(windowSteps),
                      windowSteps / seconds);
        progress.note(line);
        if (settings.sampleLength > 0)
          progress.note(sample(settings.sampleLength));
        windowLoss = 0;
        windowSteps = 0;
        windowStart = std::chrono::steady_clock::now();
      }
    }
    progress.finish();
    std::printf("loss %.3f at the first step (ln %lld = %.3f), %.3f over the "
                "last steps\n",
                firstLoss, static_cast<long long>(vocabulary),
                std::log(static_cast<double>(vocabulary)), lastMean);
    std::printf("the first step took %.2f s, its compiles included\n",
                firstStepSeconds);
    std::printf("%lld steps in %.2f s of training, compiles included; "
                "after the first step, %llu steps (%.2f steps/s) "
                "compiled %llu traces\n",
                static_cast<long long>(settings.steps), trainSeconds,
                static_cast<unsigned long long>(steadySteps),
                steadySteps / std::max(steadySeconds, 1e-9),
                static_cast<unsigned long long>(steadyCompiles));
    std::cout << metrics() << "\n";
    return steadyCompiles == 0 ? 0 : 1;
  } catch (const Error &error) {
    std::cerr << argv[0] << ": " << error.what() << "\n";
    return 1;
  }
}
