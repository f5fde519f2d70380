// RUN: lazyc-opt %s -split-input-file -verify-diagnostics

// Every verifier and type-inference error of the `lazy` dialect, plus a few
// representative ODS type-constraint errors.

//===----------------------------------------------------------------------===//
// Elementwise binary ops, compare and select
//===----------------------------------------------------------------------===//

// Binary ops require operands of identical shape (no implicit broadcasting).
func.func @add_shape_mismatch(%a: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.add' op requires operands of identical type (broadcasts and casts are explicit: see lazy.broadcast and lazy.cast), but got 'tensor<4xf32>' and 'tensor<8xf32>'}}
  %0 = lazy.add %a, %b : tensor<4xf32>, tensor<8xf32>
  return
}

// -----

// Binary ops require operands of identical element type (no implicit promotion).
func.func @sub_element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'lazy.sub' op requires operands of identical type (broadcasts and casts are explicit: see lazy.broadcast and lazy.cast), but got 'tensor<4xf32>' and 'tensor<4xf64>'}}
  %0 = lazy.sub %a, %b : tensor<4xf32>, tensor<4xf64>
  return
}

// -----

// A static and a dynamic dimension are still different operand types.
func.func @mul_static_dynamic_mismatch(%a: tensor<4xf32>, %b: tensor<?xf32>) {
  // expected-error @+1 {{'lazy.mul' op requires operands of identical type (broadcasts and casts are explicit: see lazy.broadcast and lazy.cast), but got 'tensor<4xf32>' and 'tensor<?xf32>'}}
  %0 = lazy.mul %a, %b : tensor<4xf32>, tensor<?xf32>
  return
}

// -----

// compare requires operands of identical type.
func.func @compare_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'lazy.compare' op requires operands of identical type (broadcasts and casts are explicit: see lazy.broadcast and lazy.cast), but got 'tensor<4xf32>' and 'tensor<4xi32>'}}
  %0 = lazy.compare lt, %a, %b : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

// select requires its two values to have identical types.
func.func @select_value_type_mismatch(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'lazy.select' op requires operands of identical type (broadcasts and casts are explicit: see lazy.broadcast and lazy.cast), but got 'tensor<4xf32>' and 'tensor<4xf16>'}}
  %0 = lazy.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

// select requires the condition to have the shape of the values.
func.func @select_condition_shape_mismatch(%c: tensor<8xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.select' op requires the condition to have the shape of the values, but got condition 'tensor<8xi1>' and values 'tensor<4xf32>'}}
  %0 = lazy.select %c, %a, %a : tensor<8xi1>, tensor<4xf32>
  return
}

// -----

// select requires the condition to have the rank of the values.
func.func @select_condition_rank_mismatch(%c: tensor<4x1xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.select' op requires the condition to have the shape of the values, but got condition 'tensor<4x1xi1>' and values 'tensor<4xf32>'}}
  %0 = lazy.select %c, %a, %a : tensor<4x1xi1>, tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Declared result type vs. inferred result type (generic form)
//===----------------------------------------------------------------------===//

// A binary op's declared result type must be the inferred one.
func.func @add_result_type_mismatch(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'lazy.add' op result type 'tensor<8xf32>' does not match the inferred type 'tensor<4xf32>'}}
  %0 = "lazy.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// compare's declared result type must be the inferred i1 tensor.
func.func @compare_result_type_mismatch(%a: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.compare' op result type 'tensor<?xi1>' does not match the inferred type 'tensor<4xi1>'}}
  %0 = "lazy.compare"(%a, %a) {predicate = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xi1>
  return
}

// -----

// matmul's declared result type must be the inferred [m, n] tensor.
func.func @matmul_result_type_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'lazy.matmul' op result type 'tensor<4x8xf32>' does not match the inferred type 'tensor<4x2xf32>'}}
  %0 = "lazy.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Constant and cast
//===----------------------------------------------------------------------===//

// A constant's value must have a static shape.
func.func @constant_dynamic_shape() {
  // expected-error @+1 {{'lazy.constant' op requires a value of statically shaped tensor type, but got 'tensor<?xf32>'}}
  %0 = lazy.constant dense_resource<blob> : tensor<?xf32>
  return
}

// -----

// A constant's value must be ranked.
func.func @constant_unranked() {
  // expected-error @+1 {{'lazy.constant' op requires a value of statically shaped tensor type, but got 'tensor<*xf32>'}}
  %0 = lazy.constant dense_resource<blob> : tensor<*xf32>
  return
}

// -----

// A constant's value must be a tensor, not a vector.
func.func @constant_vector() {
  // expected-error @+1 {{'lazy.constant' op requires a value of statically shaped tensor type, but got 'vector<2xf32>'}}
  %0 = lazy.constant dense<1.0> : vector<2xf32>
  return
}

// -----

// cast changes the element type only, never the shape.
func.func @cast_shape_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.cast' op changes only the element type, but the shape of 'tensor<4xf32>' differs from the shape of 'tensor<8xi32>'}}
  %0 = lazy.cast %x : tensor<4xf32> to tensor<8xi32>
  return
}

// -----

// bitcast reads bits as a type of the same width (i1 as a byte).
func.func @bitcast_width_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.bitcast' op reads the bits of 'f32' (32 bits) as 'i64' (64 bits): the widths must be equal}}
  %0 = lazy.bitcast %x : tensor<4xf32> to tensor<4xi64>
  return
}

// -----

// bitcast, like cast, never changes the shape.
func.func @bitcast_shape_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.bitcast' op changes only the element type, but the shape of 'tensor<4xf32>' differs from the shape of 'tensor<2xi64>'}}
  %0 = lazy.bitcast %x : tensor<4xf32> to tensor<2xi64>
  return
}

// -----

// cast cannot change the rank either.
func.func @cast_rank_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.cast' op changes only the element type, but the shape of 'tensor<4xf32>' differs from the shape of 'tensor<1x4xf32>'}}
  %0 = lazy.cast %x : tensor<4xf32> to tensor<1x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Broadcast, reshape, transpose
//===----------------------------------------------------------------------===//

// broadcast cannot drop dimensions.
func.func @broadcast_lower_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'lazy.broadcast' op cannot broadcast 'tensor<2x3xf32>' to the lower-rank shape [3]}}
  %0 = lazy.broadcast %x to [3] : tensor<2x3xf32>
  return
}

// -----

// broadcast requires each input dimension to be 1 or the aligned target size.
func.func @broadcast_incompatible_dim(%x: tensor<3xf32>) {
  // expected-error @+1 {{'lazy.broadcast' op cannot broadcast 'tensor<3xf32>' to [2, 4]: input dimension 0 has size 3, expected 1 or 4}}
  %0 = lazy.broadcast %x to [2, 4] : tensor<3xf32>
  return
}

// -----

// broadcast's target shape cannot hold a negative size.
func.func @broadcast_negative_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{'lazy.broadcast' op target shape has the negative size -1 at index 0}}
  %0 = lazy.broadcast %x to [-1, 3] : tensor<3xf32>
  return
}

// -----

// reshape keeps the number of elements.
func.func @reshape_element_count_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'lazy.reshape' op cannot reshape 'tensor<2x3xf32>' (6 elements) to [4, 2] (8 elements)}}
  %0 = lazy.reshape %x to [4, 2] : tensor<2x3xf32>
  return
}

// -----

// reshape's target shape cannot hold a negative size.
func.func @reshape_negative_size(%x: tensor<6xf32>) {
  // expected-error @+1 {{'lazy.reshape' op target shape has the negative size -3 at index 1}}
  %0 = lazy.reshape %x to [2, -3] : tensor<6xf32>
  return
}

// -----

// transpose needs one permutation entry per dimension.
func.func @transpose_wrong_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'lazy.transpose' op permutation [0, 1, 2] has 3 entries, but the operand 'tensor<2x3xf32>' has rank 2}}
  %0 = lazy.transpose %x [0, 1, 2] : tensor<2x3xf32>
  return
}

// -----

// transpose rejects a repeated entry.
func.func @transpose_repeated_entry(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'lazy.transpose' op permutation [1, 1] is not a permutation of [0, 2)}}
  %0 = lazy.transpose %x [1, 1] : tensor<2x3xf32>
  return
}

// -----

// transpose rejects an entry outside [0, rank).
func.func @transpose_entry_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'lazy.transpose' op permutation [0, 2] is not a permutation of [0, 2)}}
  %0 = lazy.transpose %x [0, 2] : tensor<2x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

// slice needs one start, limit and step entry per dimension.
func.func @slice_wrong_entry_count(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'lazy.slice' op requires start, limit and step with one entry per dimension of 'tensor<4x4xf32>', but got 2, 1 and 2 entries}}
  %0 = lazy.slice %x [0, 0] to [4] step [1, 1] : tensor<4x4xf32>
  return
}

// -----

// slice's limit cannot exceed the dimension size.
func.func @slice_limit_out_of_range(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'lazy.slice' op dimension 1 of 'tensor<4x4xf32>': slice [0, 5) is out of range (expected 0 <= start <= limit <= size)}}
  %0 = lazy.slice %x [0, 0] to [4, 5] step [1, 1] : tensor<4x4xf32>
  return
}

// -----

// slice's start cannot be negative.
func.func @slice_negative_start(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.slice' op dimension 0 of 'tensor<4xf32>': slice [-1, 2) is out of range (expected 0 <= start <= limit <= size)}}
  %0 = lazy.slice %x [-1] to [2] step [1] : tensor<4xf32>
  return
}

// -----

// slice's start cannot exceed its limit, even on a dynamic dimension.
func.func @slice_start_after_limit(%x: tensor<?xf32>) {
  // expected-error @+1 {{'lazy.slice' op dimension 0 of 'tensor<?xf32>': slice [3, 1) is out of range (expected 0 <= start <= limit <= size)}}
  %0 = lazy.slice %x [3] to [1] step [1] : tensor<?xf32>
  return
}

// -----

// slice's step must be at least 1.
func.func @slice_step_zero(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'lazy.slice' op dimension 1: step 0 must be at least 1}}
  %0 = lazy.slice %x [0, 0] to [4, 4] step [1, 0] : tensor<4x4xf32>
  return
}

// -----

// slice's step cannot be negative.
func.func @slice_step_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.slice' op dimension 0: step -1 must be at least 1}}
  %0 = lazy.slice %x [0] to [4] step [-1] : tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

// concat needs at least one operand (only the generic form can omit them).
func.func @concat_no_operands() {
  // expected-error @+1 {{'lazy.concat' op requires at least one operand}}
  %0 = "lazy.concat"() {axis = 0 : i64} : () -> tensor<1xf32>
  return
}

// -----

// concat's operands share one element type.
func.func @concat_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) {
  // expected-error @+1 {{'lazy.concat' op operand #1 of type 'tensor<2x3xf64>' does not match the element type and rank of operand #0 of type 'tensor<2x3xf32>'}}
  %0 = lazy.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x3xf64>
  return
}

// -----

// concat's operands share one rank.
func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<6xf32>) {
  // expected-error @+1 {{'lazy.concat' op operand #2 of type 'tensor<6xf32>' does not match the element type and rank of operand #0 of type 'tensor<2x3xf32>'}}
  %0 = lazy.concat %a, %b, %c axis = 0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>
  return
}

// -----

// concat's operands agree in every dimension but the axis.
func.func @concat_non_axis_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'lazy.concat' op operand #1 of type 'tensor<2x4xf32>' has size 4 in dimension 1, but the operands before it have size 3 (only the concatenation axis 0 may differ)}}
  %0 = lazy.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x4xf32>
  return
}

// -----

// concat's axis indexes a dimension of the operands.
func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'lazy.concat' op axis 2 is out of range for operand of type 'tensor<2x3xf32>' (expected 0 <= axis < 2)}}
  %0 = lazy.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32>
  return
}

// -----

// concat's axis cannot be negative (no Python-style wrap-around).
func.func @concat_negative_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'lazy.concat' op axis -1 is out of range for operand of type 'tensor<2x3xf32>' (expected 0 <= axis < 2)}}
  %0 = lazy.concat %a axis = -1 : tensor<2x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// A reduction axis indexes a dimension of the operand.
func.func @reduce_sum_axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'lazy.reduce_sum' op axis 2 is out of range for operand of type 'tensor<4x8xf32>' (expected 0 <= axis < 2)}}
  %0 = lazy.reduce_sum %x [0, 2] : tensor<4x8xf32>
  return
}

// -----

// A reduction axis cannot be negative.
func.func @reduce_max_negative_axis(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'lazy.reduce_max' op axis -1 is out of range for operand of type 'tensor<4x8xi32>' (expected 0 <= axis < 2)}}
  %0 = lazy.reduce_max %x [-1] keep_dims : tensor<4x8xi32>
  return
}

// -----

// Reduction axes are strictly increasing: no reordering.
func.func @reduce_mean_axes_decreasing(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'lazy.reduce_mean' op axes [1, 0] must be strictly increasing}}
  %0 = lazy.reduce_mean %x [1, 0] : tensor<4x8xf32>
  return
}

// -----

// Reduction axes are strictly increasing: no duplicates.
func.func @reduce_min_axes_repeated(%x: tensor<4x8xi64>) {
  // expected-error @+1 {{'lazy.reduce_min' op axes [1, 1] must be strictly increasing}}
  %0 = lazy.reduce_min %x [1, 1] : tensor<4x8xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// matmul's operands share one element type.
func.func @matmul_element_type_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x2xf64>) {
  // expected-error @+1 {{'lazy.matmul' op requires operands of one element type, but got 'tensor<4x8xf32>' and 'tensor<8x2xf64>'}}
  %0 = lazy.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf64>
  return
}

// -----

// matmul's operands have rank at least 2 (no vector products).
func.func @matmul_rank_too_low(%a: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.matmul' op requires operands of equal rank, at least 2, but got 'tensor<8xf32>' and 'tensor<8xf32>'}}
  %0 = lazy.matmul %a, %a : tensor<8xf32>, tensor<8xf32>
  return
}

// -----

// matmul's operands have equal ranks.
func.func @matmul_rank_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'lazy.matmul' op requires operands of equal rank, at least 2, but got 'tensor<2x4x8xf32>' and 'tensor<8x2xf32>'}}
  %0 = lazy.matmul %a, %b : tensor<2x4x8xf32>, tensor<8x2xf32>
  return
}

// -----

// matmul's batch dimensions are identical (no implicit batch broadcasting).
func.func @matmul_batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x2xf32>) {
  // expected-error @+1 {{'lazy.matmul' op requires identical batch dimensions, but got 'tensor<2x4x8xf32>' and 'tensor<3x8x2xf32>' (batch broadcasting is explicit)}}
  %0 = lazy.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x2xf32>
  return
}

// -----

// matmul's lhs columns equal its rhs rows.
func.func @matmul_contracting_mismatch(%a: tensor<4x8xf32>, %b: tensor<7x2xf32>) {
  // expected-error @+1 {{'lazy.matmul' op contracting dimensions differ: 'tensor<4x8xf32>' has 8 columns, 'tensor<7x2xf32>' has 7 rows}}
  %0 = lazy.matmul %a, %b : tensor<4x8xf32>, tensor<7x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Conv2d
//===----------------------------------------------------------------------===//

// conv2d's operands share one element type.
func.func @conv2d_element_type_mismatch(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf64>) {
  // expected-error @+1 {{'lazy.conv2d' op requires operands of one element type, but got 'tensor<1x2x5x5xf32>' and 'tensor<3x2x3x3xf64>'}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf64>
  return
}

// -----

// conv2d takes images and filters of rank 4.
func.func @conv2d_rank(%x: tensor<2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op requires images [N, C, H, W] and filters [F, C, KH, KW], but got 'tensor<2x5x5xf32>' and 'tensor<3x2x3x3xf32>'}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<2x5x5xf32>, tensor<3x2x3x3xf32>
  return
}

// -----

// conv2d's strides and dilations are two positive numbers each.
func.func @conv2d_stride(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op requires two positive strides and dilations, but got stride [0, 1] and dilation [1, 1]}}
  %0 = lazy.conv2d %x, %w stride [0, 1] dilation [1, 1] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  return
}

// -----

func.func @conv2d_dilation_count(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op requires two positive strides and dilations, but got stride [1, 1] and dilation [1]}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  return
}

// -----

// conv2d's filters have the images' channels.
func.func @conv2d_channels(%x: tensor<1x2x5x5xf32>, %w: tensor<3x4x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op channels differ: 'tensor<1x2x5x5xf32>' has 2, 'tensor<3x4x3x3xf32>' has 4}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<1x2x5x5xf32>, tensor<3x4x3x3xf32>
  return
}

// -----

// conv2d's dilated kernel fits the padded images.
func.func @conv2d_does_not_fit(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op the filter 'tensor<3x2x3x3xf32>' (dilation [3, 1]) does not fit the images 'tensor<1x2x5x5xf32>' with padding [0, 0, 0, 0]}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [3, 1] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  return
}

// -----

// Padding counts toward the fit: 5 + 1 rows still cannot hold a dilated
// reach of 7.
func.func @conv2d_does_not_fit_padded(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op the filter 'tensor<3x2x3x3xf32>' (dilation [3, 1]) does not fit the images 'tensor<1x2x5x5xf32>' with padding [0, 1, 0, 0]}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [3, 1] padding [0, 1, 0, 0] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  return
}

// -----

// Padding is four sizes, none negative.
func.func @conv2d_padding_count(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op requires padding [top, bottom, left, right] of four sizes >= 0, but got [1, 1]}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] padding [1, 1] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  return
}

// -----

func.func @conv2d_negative_padding(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op requires padding [top, bottom, left, right] of four sizes >= 0, but got [0, 0, -1, 0]}}
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] padding [0, 0, -1, 0] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  return
}

// -----

// conv2d's declared result type must be the inferred [N, F, OH, OW] tensor.
func.func @conv2d_result_type_mismatch(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'lazy.conv2d' op result type 'tensor<1x3x3x3xf32>' does not match the inferred type 'tensor<1x3x2x3xf32>'}}
  %0 = "lazy.conv2d"(%x, %w) {stride = array<i64: 2, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Softmax and log-softmax
//===----------------------------------------------------------------------===//

// softmax's axis indexes a dimension of the operand.
func.func @softmax_axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'lazy.softmax' op axis 2 is out of range for operand of type 'tensor<4x8xf32>' (expected 0 <= axis < 2)}}
  %0 = lazy.softmax %x, axis = 2 : tensor<4x8xf32>
  return
}

// -----

// log_softmax's axis cannot be negative.
func.func @log_softmax_negative_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'lazy.log_softmax' op axis -1 is out of range for operand of type 'tensor<4x8xf32>' (expected 0 <= axis < 2)}}
  %0 = lazy.log_softmax %x, axis = -1 : tensor<4x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Random ops
//===----------------------------------------------------------------------===//

// random_uniform requires low < high.
func.func @random_uniform_empty_range() {
  %seed0 = lazy.constant dense<0> : tensor<i64>
  // expected-error @+1 {{'lazy.random_uniform' op requires finite bounds with low < high, but got low = 1.000000e+00, high = 1.000000e+00}}
  %0 = lazy.random_uniform %seed0, low = 1.0, high = 1.0 : tensor<i64> -> tensor<4xf32>
  return
}

// -----

// random_uniform requires finite bounds.
func.func @random_uniform_infinite_bound() {
  %seed0 = lazy.constant dense<0> : tensor<i64>
  // expected-error @+1 {{'lazy.random_uniform' op requires finite bounds with low < high, but got low = 0.000000e+00, high = INF}}
  %0 = lazy.random_uniform %seed0, low = 0.0, high = 0x7FF0000000000000 : tensor<i64> -> tensor<4xf32>
  return
}

// -----

// random_uniform takes one size operand per dynamic result dimension.
func.func @random_uniform_dynamic_shape() {
  %seed0 = lazy.constant dense<7> : tensor<i64>
  // expected-error @+1 {{'lazy.random_uniform' op result type 'tensor<?x4xf32>' has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %0 = lazy.random_uniform %seed0, low = 0.0, high = 1.0 : tensor<i64> -> tensor<?x4xf32>
  return
}

// -----

// random_normal requires stddev >= 0.
func.func @random_normal_negative_stddev() {
  %seed0 = lazy.constant dense<0> : tensor<i64>
  // expected-error @+1 {{'lazy.random_normal' op requires a finite mean and a finite stddev >= 0, but got mean = 0.000000e+00, stddev = -1.000000e+00}}
  %0 = lazy.random_normal %seed0, mean = 0.0, stddev = -1.0 : tensor<i64> -> tensor<4xf32>
  return
}

// -----

// random_normal requires a finite mean.
func.func @random_normal_nan_mean() {
  %seed0 = lazy.constant dense<0> : tensor<i64>
  // expected-error @+1 {{'lazy.random_normal' op requires a finite mean and a finite stddev >= 0, but got mean = nan, stddev = 1.000000e+00}}
  %0 = lazy.random_normal %seed0, mean = 0x7FF8000000000000, stddev = 1.0 : tensor<i64> -> tensor<4xf32>
  return
}

// -----

// random_normal takes one size operand per dynamic result dimension.
func.func @random_normal_dynamic_shape(%n: index) {
  %seed0 = lazy.constant dense<0> : tensor<i64>
  // expected-error @+1 {{'lazy.random_normal' op result type 'tensor<4xf64>' has 0 dynamic dimension(s) but 1 size operand(s) were given}}
  %0 = lazy.random_normal %seed0 [%n], mean = 0.0, stddev = 1.0 : tensor<i64> -> tensor<4xf64>
  return
}

// -----

// A random op's seed is a 0-d i64 tensor.
func.func @random_normal_vector_seed(%seed: tensor<2xi64>) {
  // expected-error @+1 {{'lazy.random_normal' op operand #0 must be 0D tensor of 64-bit signless integer values, but got 'tensor<2xi64>'}}
  %0 = lazy.random_normal %seed, mean = 0.0, stddev = 1.0 : tensor<2xi64> -> tensor<4xf64>
  return
}

// -----

// A broadcast takes one size operand per `?` of its target shape.
func.func @broadcast_missing_size(%s: tensor<f32>, %n: index) {
  // expected-error @+1 {{'lazy.broadcast' op target shape [?, ?] has 2 dynamic size(s) but 1 size operand(s) were given}}
  %0 = "lazy.broadcast"(%s, %n) <{shape = array<i64: -9223372036854775808, -9223372036854775808>}> : (tensor<f32>, index) -> tensor<?x?xf32>
  return
}

// -----

// So does a reshape.
func.func @reshape_extra_size(%y: tensor<6xf32>, %n: index) {
  // expected-error @+1 {{'lazy.reshape' op target shape [2, 3] has 0 dynamic size(s) but 1 size operand(s) were given}}
  %0 = "lazy.reshape"(%y, %n) <{shape = array<i64: 2, 3>}> : (tensor<6xf32>, index) -> tensor<2x3xf32>
  return
}

// -----

// A dynamic reshape's result keeps its static sizes.
func.func @reshape_dynamic_wrong_result(%y: tensor<?xf32>, %n: index) {
  // expected-error @+1 {{'lazy.reshape' op result type 'tensor<?x4xf32>' does not match the inferred type 'tensor<?x3xf32>'}}
  %0 = "lazy.reshape"(%y, %n) <{shape = array<i64: -9223372036854775808, 3>}> : (tensor<?xf32>, index) -> tensor<?x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// ODS type constraints
//===----------------------------------------------------------------------===//

// Transcendentals take floating-point tensors only.
func.func @exp_integer_operand(%x: tensor<4xi32>) {
  // expected-error @+1 {{'lazy.exp' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = lazy.exp %x : tensor<4xi32>
  return
}

// -----

func.func @asin_integer_operand(%x: tensor<4xi64>) {
  // expected-error @+1 {{'lazy.asin' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi64>'}}
  %0 = lazy.asin %x : tensor<4xi64>
  return
}

// -----

// Arithmetic is not defined on booleans.
func.func @add_bool_operand(%x: tensor<4xi1>) {
  // expected-error @+1 {{'lazy.add' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values, but got 'tensor<4xi1>'}}
  %0 = lazy.add %x, %x : tensor<4xi1>
  return
}

// -----

// Operands are ranked tensors.
func.func @add_unranked_operand(%x: tensor<*xf32>) {
  // expected-error @+1 {{'lazy.add' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values, but got 'tensor<*xf32>'}}
  %0 = lazy.add %x, %x : tensor<*xf32>
  return
}

// -----

// Operands are tensors, not memrefs.
func.func @mul_memref_operand(%x: memref<4xf32>) {
  // expected-error @+1 {{'lazy.mul' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values, but got 'memref<4xf32>'}}
  %0 = lazy.mul %x, %x : memref<4xf32>
  return
}

// -----

// A custom-form type that must be a ranked tensor is checked while parsing.
func.func @neg_unranked_operand(%x: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'lazy.neg' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = lazy.neg %x : tensor<*xf32>
  return
}

// -----

// i24 is not a lazy element type.
func.func @cast_i24_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.cast' op result #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values, but got 'tensor<4xi24>'}}
  %0 = lazy.cast %x : tensor<4xf32> to tensor<4xi24>
  return
}

// -----

// A constant of an unsupported element type is rejected by its result constraint.
func.func @constant_i24_element() {
  // expected-error @+1 {{'lazy.constant' op result #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values, but got 'tensor<2xi24>'}}
  %0 = lazy.constant dense<1> : tensor<2xi24>
  return
}

// -----

// compare's result is a boolean tensor.
func.func @compare_non_bool_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "lazy.compare"(%a, %a) {predicate = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// select's condition is a boolean tensor.
func.func @select_non_bool_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = lazy.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// softmax takes floating-point tensors only.
func.func @softmax_integer_operand(%x: tensor<4xi64>) {
  // expected-error @+1 {{'lazy.softmax' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi64>'}}
  %0 = lazy.softmax %x, axis = 0 : tensor<4xi64>
  return
}

// -----

// Random ops produce floating-point tensors only.
func.func @random_uniform_integer_result() {
  %seed0 = lazy.constant dense<0> : tensor<i64>
  // expected-error @+1 {{'lazy.random_uniform' op result #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = lazy.random_uniform %seed0, low = 0.0, high = 1.0 : tensor<i64> -> tensor<4xi32>
  return
}

// -----

// Operands after a dynamic size must agree with each other (regression: only
// operand #0 used to be compared).
func.func @concat_mismatch_after_dynamic(%a: tensor<2x?xf32>, %b: tensor<2x3xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+1 {{'lazy.concat' op operand #2 of type 'tensor<2x4xf32>' has size 4 in dimension 1, but the operands before it have size 3 (only the concatenation axis 0 may differ)}}
  %0 = lazy.concat %a, %b, %c axis = 0 : tensor<2x?xf32>, tensor<2x3xf32>, tensor<2x4xf32>
  return
}

// -----

// The concatenated size must fit in int64 (regression: it used to wrap).
func.func @concat_size_overflow(%a: tensor<9223372036854775807xf32>) {
  // expected-error @+1 {{'lazy.concat' op concatenated size along axis 0 overflows int64}}
  %0 = lazy.concat %a, %a axis = 0 : tensor<9223372036854775807xf32>, tensor<9223372036854775807xf32>
  return
}

// -----

// A target shape's element count must fit in int64 (regression: it used to
// wrap, so a 0-element tensor could be reshaped to 2^64 elements).
func.func @reshape_element_count_overflow(%a: tensor<0xf32>) {
  // expected-error @+1 {{'lazy.reshape' op target shape [4294967296, 4294967296] has more than 2^63 elements}}
  %0 = lazy.reshape %a to [4294967296, 4294967296] : tensor<0xf32>
  return
}

// -----

// The dynamic-size marker is not a size: written as a number, it stands for
// a size operand, which is missing.
func.func @broadcast_min_int_size(%a: tensor<3xf32>) {
  // expected-error @+1 {{'lazy.broadcast' op target shape [?] has 1 dynamic size(s) but 0 size operand(s) were given}}
  %0 = lazy.broadcast %a to [-9223372036854775808] : tensor<3xf32>
  return
}


// -----

// `lazy.tied_argument`: a result lives in an argument of its own type.
// expected-error @+1 {{result 0 is tied to argument 1, but the function has 1 arguments}}
func.func @tied_argument_out_of_range(%a: tensor<4xf32>) -> (tensor<4xf32> {lazy.tied_argument = 1 : i64}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 of type 'tensor<4xf32>' is tied to argument 0 of type 'tensor<4xf64>': the types must be equal}}
func.func @tied_argument_type_mismatch(%a: tensor<4xf64>) -> (tensor<4xf32> {lazy.tied_argument = 0 : i64}) {
  %0 = lazy.cast %a : tensor<4xf64> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{results 0 and 1 are both tied to argument 0}}
func.func @tied_argument_twice(%a: tensor<4xf32>) -> (tensor<4xf32> {lazy.tied_argument = 0 : i64}, tensor<4xf32> {lazy.tied_argument = 0 : i64}) {
  %0 = lazy.neg %a : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown lazy result attribute 'lazy.tied'}}
func.func @unknown_result_attribute(%a: tensor<4xf32>) -> (tensor<4xf32> {lazy.tied = 0 : i64}) {
  return %a : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

// -----

func.func @if_branch_types_differ(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.if' op requires its else region to yield 'tensor<4xf32>' for result 0, but it yields 'tensor<3xf32>'}}
  %r = lazy.if %c : tensor<i1> -> (tensor<4xf32>) {
    lazy.yield %x : tensor<4xf32>
  } else {
    lazy.yield %y : tensor<3xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @if_yields_too_few(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.if' op requires its then region to yield 1 value(s), but it yields 0}}
  %r = lazy.if %c : tensor<i1> -> (tensor<4xf32>) {
    lazy.yield
  } else {
    lazy.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @if_predicate_not_scalar(%c: tensor<2xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.if' op operand #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<2xi1>'}}
  %r = lazy.if %c : tensor<2xi1> -> (tensor<4xf32>) {
    lazy.yield %x : tensor<4xf32>
  } else {
    lazy.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @while_body_changes_type(%x0: tensor<4xf32>, %y: tensor<3xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.while' op requires its body region to yield 'tensor<4xf32>' for carried value 0, but it yields 'tensor<3xf32>'}}
  %r = lazy.while %x0 : tensor<4xf32> condition {
  ^bb0(%x: tensor<4xf32>):
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%x: tensor<4xf32>):
    lazy.yield %y : tensor<3xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @while_condition_not_bool(%x0: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.while' op requires its condition region to yield 'tensor<i1>' for value 0, but it yields 'tensor<f32>'}}
  %r = lazy.while %x0 : tensor<4xf32> condition {
  ^bb0(%x: tensor<4xf32>):
    lazy.yield %s : tensor<f32>
  } body {
  ^bb0(%x: tensor<4xf32>):
    lazy.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @while_argument_type(%x0: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.while' op requires argument 0 of its body region to have the carried type 'tensor<4xf32>', but it has 'tensor<4xi32>'}}
  %r = lazy.while %x0 : tensor<4xf32> condition {
  ^bb0(%x: tensor<4xf32>):
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%x: tensor<4xi32>):
    lazy.yield %x0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_outside_control_flow(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.yield' op expects parent op to be one of 'lazy.if, lazy.while'}}
  lazy.yield %x : tensor<4xf32>
}

// -----

func.func @index_row_of_scalar(%x: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{'lazy.index_row' op requires an input of rank >= 1, but got 'tensor<f32>'}}
  %r = lazy.index_row %x[%i] : tensor<f32>
  return
}

// -----

func.func @update_row_wrong_value(%x: tensor<8x4xf32>, %i: tensor<i64>, %v: tensor<3xf32>) {
  // expected-error @+1 {{'lazy.update_row' op requires a value of the row type 'tensor<4xf32>', but got 'tensor<3xf32>'}}
  %r = lazy.update_row %x[%i] = %v : tensor<8x4xf32>, tensor<3xf32>
  return
}

// -----

func.func @gather_axis_out_of_range(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'lazy.gather' op axis 2 is out of range for operand of type 'tensor<4x8xf32>' (expected 0 <= axis < 2)}}
  %0 = lazy.gather %x[%i], axis = 2 : tensor<4x8xf32>, tensor<4x3xi64>
  return
}

// -----

func.func @gather_wrong_rank(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'lazy.gather' op requires indices of rank 2 (the input's), but got 'tensor<3xi64>'}}
  %0 = lazy.gather %x[%i], axis = 1 : tensor<4x8xf32>, tensor<3xi64>
  return
}

// -----

func.func @gather_wrong_size_outside_axis(%x: tensor<4x8xf32>, %i: tensor<5x3xi64>) {
  // expected-error @+1 {{'lazy.gather' op requires indices with the input's sizes outside axis 1, but got 'tensor<5x3xi64>' for input 'tensor<4x8xf32>'}}
  %0 = lazy.gather %x[%i], axis = 1 : tensor<4x8xf32>, tensor<5x3xi64>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<4x8xf32>, %i: tensor<4x3xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = lazy.gather %x[%i], axis = 1 : tensor<4x8xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @scatter_add_wrong_updates_type(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>, %u: tensor<4x3xf64>) {
  // expected-error @+1 {{'lazy.scatter_add' op requires updates of the input's element type, but got 'tensor<4x3xf64>' for input 'tensor<4x8xf32>'}}
  %0 = lazy.scatter_add %x[%i], %u, axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x3xf64>
  return
}

// -----

func.func @scatter_add_shape_mismatch(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>, %u: tensor<4x2xf32>) {
  // expected-error @+1 {{'lazy.scatter_add' op requires indices and updates of one shape, but got 'tensor<4x3xi64>' and 'tensor<4x2xf32>'}}
  %0 = lazy.scatter_add %x[%i], %u, axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x2xf32>
  return
}

// -----

func.func @scatter_add_wrong_size_outside_axis(%x: tensor<4x8xf32>, %i: tensor<3x3xi64>, %u: tensor<3x3xf32>) {
  // expected-error @+1 {{'lazy.scatter_add' op requires updates with the input's sizes outside axis 1, but got 'tensor<3x3xf32>' for input 'tensor<4x8xf32>'}}
  %0 = lazy.scatter_add %x[%i], %u, axis = 1 : tensor<4x8xf32>, tensor<3x3xi64>, tensor<3x3xf32>
  return
}

// -----

func.func @argmax_empty_axis(%x: tensor<4x0xf32>) {
  // expected-error @+1 {{'lazy.argmax' op requires a non-empty axis 1, but got 'tensor<4x0xf32>'}}
  %0 = lazy.argmax %x, axis = 1 : tensor<4x0xf32>
  return
}

// -----

func.func @argmin_axis_out_of_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.argmin' op axis -1 is out of range for operand of type 'tensor<4xf32>' (expected 0 <= axis < 1)}}
  %0 = lazy.argmin %x, axis = -1 : tensor<4xf32>
  return
}

// -----

func.func @cumsum_axis_out_of_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.cumsum' op axis 1 is out of range for operand of type 'tensor<4xf32>' (expected 0 <= axis < 1)}}
  %0 = lazy.cumsum %x, axis = 1 : tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// An all-reduce needs to know how to combine the ranks' elements.
func.func @all_reduce_without_reduce(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op all_reduce requires `reduce` attribute}}
  %0 = lazy.collective all_reduce %x, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// So does a reduce-scatter.
func.func @reduce_scatter_without_reduce(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op reduce_scatter requires `reduce` attribute}}
  %0 = lazy.collective reduce_scatter %x, world_size = 2 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

// A broadcast copies, it combines nothing.
func.func @broadcast_with_reduce(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op broadcast takes no `reduce` attribute}}
  %0 = lazy.collective broadcast %x reduce sum root 0, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// Neither does an all-gather.
func.func @all_gather_with_reduce(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op all_gather takes no `reduce` attribute}}
  %0 = lazy.collective all_gather %x reduce sum, world_size = 2 : tensor<8xf32> -> tensor<16xf32>
  return
}

// -----

// A broadcast needs the rank it copies from.
func.func @broadcast_without_root(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op broadcast requires `root` attribute}}
  %0 = lazy.collective broadcast %x, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// Only a broadcast has a root.
func.func @all_reduce_with_root(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op all_reduce takes no `root` attribute}}
  %0 = lazy.collective all_reduce %x reduce sum root 0, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// The root is a rank of the world: 0 <= root < world_size.
func.func @broadcast_root_out_of_range(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op root 2 is not a rank of a world of size 2}}
  %0 = lazy.collective broadcast %x root 2, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// A negative root reads as negative (the attribute's getter is unsigned).
func.func @broadcast_negative_root(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op root -1 is not a rank of a world of size 2}}
  %0 = lazy.collective broadcast %x root -1, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// A world has at least one process.
func.func @collective_empty_world(%x: tensor<8xf32>) {
  // expected-error @+1 {{'lazy.collective' op requires a world_size of at least 1, but got 0}}
  %0 = lazy.collective all_reduce %x reduce sum, world_size = 0 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// An all-gather concatenates along dimension 0, which a 0-d tensor lacks.
func.func @all_gather_rank_0(%x: tensor<f32>) {
  // expected-error @+1 {{'lazy.collective' op all_gather works along dimension 0, but the input 'tensor<f32>' has rank 0}}
  %0 = lazy.collective all_gather %x, world_size = 2 : tensor<f32> -> tensor<f32>
  return
}

// -----

// A reduce-scatter splits along dimension 0 as well.
func.func @reduce_scatter_rank_0(%x: tensor<f32>) {
  // expected-error @+1 {{'lazy.collective' op reduce_scatter works along dimension 0, but the input 'tensor<f32>' has rank 0}}
  %0 = lazy.collective reduce_scatter %x reduce sum, world_size = 2 : tensor<f32> -> tensor<f32>
  return
}

// -----

// A reduce-scatter gives every rank an equal block of dimension 0.
func.func @reduce_scatter_not_divisible(%x: tensor<6x2xf32>) {
  // expected-error @+1 {{'lazy.collective' op reduce_scatter splits dimension 0 into world_size = 4 blocks, but the input 'tensor<6x2xf32>' has 6 rows}}
  %0 = lazy.collective reduce_scatter %x reduce sum, world_size = 4 : tensor<6x2xf32> -> tensor<1x2xf32>
  return
}

// -----

// The declared result type must be the inferred one: an all-gather's
// dimension 0 grows world_size times.
func.func @all_gather_result_mismatch(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'lazy.collective' op result type 'tensor<2x8xf32>' does not match the inferred type 'tensor<8x8xf32>'}}
  %0 = lazy.collective all_gather %x, world_size = 4 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

// A dynamic dimension 0 stays dynamic: the result cannot claim a size.
func.func @all_gather_dynamic_result_mismatch(%x: tensor<?x2xf32>) {
  // expected-error @+1 {{'lazy.collective' op result type 'tensor<8x2xf32>' does not match the inferred type 'tensor<?x2xf32>'}}
  %0 = lazy.collective all_gather %x, world_size = 4 : tensor<?x2xf32> -> tensor<8x2xf32>
  return
}

// -----

// Collectives exchange numbers; booleans are not a runtime dtype.
func.func @collective_of_booleans(%x: tensor<8xi1>) {
  // expected-error @+1 {{'lazy.collective' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values, but got 'tensor<8xi1>'}}
  %0 = lazy.collective all_reduce %x reduce max, world_size = 2 : tensor<8xi1> -> tensor<8xi1>
  return
}

// -----

// Attention's q, k and v share one element type.
func.func @attention_element_types(%q: tensor<4x8xf32>, %k: tensor<4x8xf64>, %s: tensor<i64>) {
  // expected-error @+1 {{'lazy.attention' op requires q, k and v of one element type, but got 'tensor<4x8xf32>', 'tensor<4x8xf64>' and 'tensor<4x8xf32>'}}
  %0 = lazy.attention %q, %k, %q, seed %s, scale = 1.0, dropout = 0.0 : tensor<4x8xf32>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<i64>
  return
}

// -----

// The runtime's kernels take at most four batch dimensions.
func.func @attention_rank(%q: tensor<1x1x1x1x1x4x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'lazy.attention' op requires q, k and v of one rank, from 2 to 6}}
  %0 = lazy.attention %q, %q, %q, seed %s, scale = 1.0, dropout = 0.0 : tensor<1x1x1x1x1x4x8xf32>, tensor<1x1x1x1x1x4x8xf32>, tensor<1x1x1x1x1x4x8xf32>, tensor<i64>
  return
}

// -----

// Batch dimensions do not broadcast here: the caller broadcasts them.
func.func @attention_batch(%q: tensor<2x4x8xf32>, %k: tensor<1x4x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'lazy.attention' op requires identical batch dimensions}}
  %0 = lazy.attention %q, %k, %k, seed %s, scale = 1.0, dropout = 0.0 : tensor<2x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<i64>
  return
}

// -----

// q and k need one depth, k and v one length.
func.func @attention_fit(%q: tensor<4x8xf32>, %k: tensor<5x8xf32>, %v: tensor<6x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{do not fit: q and k need one depth, k and v one length}}
  %0 = lazy.attention %q, %k, %v, seed %s, scale = 1.0, dropout = 0.0 : tensor<4x8xf32>, tensor<5x8xf32>, tensor<6x8xf32>, tensor<i64>
  return
}

// -----

// The bias broadcasts to the scores [Tq, Tk] = [4, 5].
func.func @attention_bias(%q: tensor<4x8xf32>, %k: tensor<5x8xf32>, %b: tensor<4x4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'lazy.attention' op the bias 'tensor<4x4xf32>' does not broadcast to the scores of q 'tensor<4x8xf32>' and k 'tensor<5x8xf32>'}}
  %0 = lazy.attention %q, %k, %k, seed %s bias %b, scale = 1.0, dropout = 0.0 : tensor<4x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>, tensor<i64>, tensor<4x4xf32>
  return
}

// -----

// A probability.
func.func @attention_dropout(%q: tensor<4x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'lazy.attention' op requires a dropout in [0, 1], but got 1.5}}
  %0 = lazy.attention %q, %q, %q, seed %s, scale = 1.0, dropout = 1.5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i64>
  return
}

// -----

// A gradient reads the forward's result, statistics column included.
func.func @attention_grad_out(%q: tensor<4x8xf32>, %o: tensor<4x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'lazy.attention_grad' op requires the forward's result `out` of shape [4, 9] and element type 'f32', but got 'tensor<4x8xf32>'}}
  %0 = lazy.attention_grad query %q, %q, %q, %o, %o, seed %s, scale = 1.0, dropout = 0.0 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i64>
  return
}
