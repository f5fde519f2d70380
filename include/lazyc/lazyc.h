//===- lazyc.h - The lazyc C++ API ------------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one header a lazyc program includes.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LAZYC_H
#define LAZYC_LAZYC_H

#include "lazyc/API/Autocast.h"
#include "lazyc/API/Autodiff.h"
#include "lazyc/API/Compile.h"
#include "lazyc/API/ControlFlow.h"
#include "lazyc/API/Device.h"
#include "lazyc/API/Distributed.h"
#include "lazyc/API/Error.h"
#include "lazyc/API/Export.h"
#include "lazyc/API/Function.h"
#include "lazyc/API/Interop.h"
#include "lazyc/API/Metrics.h"
#include "lazyc/API/Ops.h"
#include "lazyc/API/Profile.h"
#include "lazyc/API/Serialization.h"
#include "lazyc/API/Tensor.h"
#include "lazyc/API/Variable.h"
#include "lazyc/API/Views.h"

#endif // LAZYC_LAZYC_H
