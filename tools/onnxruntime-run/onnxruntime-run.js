#!/usr/bin/env node
//===- onnxruntime-run.js - Run an ONNX model with ONNX Runtime -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX Runtime (CPU) as the peer lazyc checks its ONNX export against and
// benchmarks beside: its Node.js package (onnxruntime-node, which carries
// libonnxruntime.so), installed by scripts/setup into
// $LAZYC_ONNXRUNTIME_DIR (default ~/.cache/lazyc/onnxruntime).
//
//   onnxruntime-run.js model.onnx --input x=x.npy [--input ...]
//       [--output-dir DIR] [--threads N] [--repeat N] [--warmup N]
//
// Writes each output as DIR/<output name>.npy. With --repeat, times that
// many runs after the warm-up ones and prints one JSON line:
// {"runs": N, "median_ms": ..., "call_median_ms": ...,
//  "profiled_median_ms": ..., "threads": N}. Two measures, each an upper
// bound of ONNX Runtime's own time: the call from JavaScript
// (call_median_ms) also copies the outputs into JavaScript memory, which
// for a 16 MB output costs more than the model; its profiler's `model_run`
// events (profiled_median_ms, from a second session) add a little per node.
// median_ms is the smaller.
//
//===----------------------------------------------------------------------===//
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

function fail(message) {
  process.stderr.write(`onnxruntime-run: error: ${message}\n`);
  process.exit(1);
}

const ortDir = process.env.LAZYC_ONNXRUNTIME_DIR ||
               path.join(os.homedir(), '.cache', 'lazyc', 'onnxruntime');
let ort;
try {
  ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));
} catch (error) {
  fail(`ONNX Runtime is not installed in ${ortDir} (scripts/setup installs ` +
       `it with npm): ${error.message}`);
}

// numpy's .npy format, version 1 to 3, C order.
const kTypes = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<f2': ['float16', Uint16Array], '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array],
  '<i2': ['int16', Int16Array], '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array],
};

function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY')
    fail(`${file} is not a .npy file`);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLength);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header))
    fail(`${file}: unsupported .npy header ${header}`);
  const type = kTypes[descr[1]];
  if (!type)
    fail(`${file}: unsupported dtype ${descr[1]}`);
  const dims = shape[1].split(',').map(s => s.trim()).filter(s => s.length)
                   .map(Number);
  const offset = start + headerLength;
  const data = bytes.buffer.slice(bytes.byteOffset + offset,
                                  bytes.byteOffset + bytes.length);
  return new ort.Tensor(type[0], new type[1](data), dims);
}

function writeNpy(file, tensor) {
  const entry = Object.entries(kTypes).find(([, t]) => t[0] === tensor.type);
  if (!entry)
    fail(`cannot write an output of type ${tensor.type}`);
  const dims = tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',' : '');
  let header = `{'descr': '${entry[0]}', 'fortran_order': False, ` +
               `'shape': (${dims}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  fs.writeFileSync(file, Buffer.concat([
    prefix, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  ]));
}

async function main() {
  const args = process.argv.slice(2);
  const options = {inputs: {}, outputDir: null, threads: 0, repeat: 0, warmup: 3};
  let model = null;
  for (let i = 0; i < args.length; ++i) {
    const arg = args[i];
    const value = () => {
      if (i + 1 >= args.length)
        fail(`${arg} needs a value`);
      return args[++i];
    };
    if (arg === '--input') {
      const [name, file] = value().split('=');
      if (!file)
        fail('--input takes name=file.npy');
      options.inputs[name] = readNpy(file);
    } else if (arg === '--output-dir') {
      options.outputDir = value();
    } else if (arg === '--threads') {
      options.threads = Number(value());
    } else if (arg === '--repeat') {
      options.repeat = Number(value());
    } else if (arg === '--warmup') {
      options.warmup = Number(value());
    } else if (arg.startsWith('--')) {
      fail(`unknown option ${arg}`);
    } else {
      model = arg;
    }
  }
  if (!model)
    fail('no model given');
  const sessionOptions = {executionProviders: ['cpu'],
                          graphOptimizationLevel: 'all'};
  if (options.threads > 0) {
    sessionOptions.intraOpNumThreads = options.threads;
    sessionOptions.interOpNumThreads = 1;
  }
  const session = await ort.InferenceSession.create(model, sessionOptions);
  const results = await session.run(options.inputs);
  if (options.outputDir)
    for (const name of session.outputNames)
      writeNpy(path.join(options.outputDir, `${name}.npy`), results[name]);
  if (options.repeat > 0) {
    const callMs = await medianCall(session, options);
    await session.release();
    const profile = path.join(os.tmpdir(), `lazyc-ort-profile-${process.pid}`);
    const profiled = await ort.InferenceSession.create(model, {
      ...sessionOptions, enableProfiling: true, profileFilePrefix: profile});
    await medianCall(profiled, options);
    profiled.endProfiling();
    await profiled.release();
    const prefix = path.basename(profile);
    const file = fs.readdirSync(os.tmpdir()).find(f => f.startsWith(prefix));
    if (!file)
      fail('ONNX Runtime wrote no profile');
    const events = JSON.parse(fs.readFileSync(path.join(os.tmpdir(), file)));
    fs.unlinkSync(path.join(os.tmpdir(), file));
    const runs = events.filter(e => e.name === 'model_run')
                     .map(e => e.dur / 1000)
                     .slice(-options.repeat);
    const profiledMs = median(runs);
    console.log(JSON.stringify({
      runs: runs.length, median_ms: Math.min(callMs, profiledMs),
      call_median_ms: callMs, profiled_median_ms: profiledMs,
      threads: options.threads}));
  }
}

function median(values) {
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
}

/// Warm-up runs, then the median of `repeat` timed runs, in ms.
async function medianCall(session, options) {
  for (let i = 0; i < options.warmup; ++i)
    await session.run(options.inputs);
  const times = [];
  for (let i = 0; i < options.repeat; ++i) {
    const start = process.hrtime.bigint();
    await session.run(options.inputs);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

main().catch(error => fail(error.message));
