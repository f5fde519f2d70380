//===- nn.h - Training with lazyc -------------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The header a training program includes: the Tensor API, gradients and
// variables, layers and modules, activations, losses, optimizers, data sets
// and the data loader.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_H
#define LAZYC_NN_H

#include "lazyc/lazyc.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/API/Variable.h"
#include "lazyc/Data/Dataset.h"
#include "lazyc/Data/Idx.h"
#include "lazyc/Data/Loader.h"
#include "lazyc/NN/Activations.h"
#include "lazyc/NN/Init.h"
#include "lazyc/NN/Layers.h"
#include "lazyc/NN/Linear.h"
#include "lazyc/NN/Losses.h"
#include "lazyc/NN/Modules.h"
#include "lazyc/NN/Sequential.h"
#include "lazyc/Optim/Adam.h"
#include "lazyc/Optim/GradScaler.h"
#include "lazyc/Optim/SGD.h"

#endif // LAZYC_NN_H
