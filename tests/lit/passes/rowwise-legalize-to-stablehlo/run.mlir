// RUN: qcomp-opt %s --rowwise-legalize-to-stablehlo --split-input-file | qcomp-run - --split-input-file | FileCheck %s
// The lowered programs pass the same checks as tests/lit/dialects/rowwise/run.mlir: no
// rowwise op is left and every float and byte is the interpreter's (and torch's).

// CHECK: 22 passed, 0 failed

// REFERENCE.md section 10: a 3 x 8 table -> 3 x 16 bytes: 8 values, f32 scale 7/255
// (0x3CE0E0E1), f32 bias (0, 8, 16); torch's embedding_bag_byte_prepack gives the same bytes.
func.func @fused_8bit() {
  %x = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<3x8xf32>
  %q = rowwise.float_to_fused_8bit %x : tensor<3x8xf32> -> tensor<3x16xui8>
  check.expect_eq_const %q, dense<[[0, 36, 73, 109, 146, 182, 219, 255, 225, 224, 224, 60, 0, 0, 0, 0], [0, 36, 73, 109, 146, 182, 219, 255, 225, 224, 224, 60, 0, 0, 0, 65], [0, 36, 73, 109, 146, 182, 219, 255, 225, 224, 224, 60, 0, 0, 128, 65]]> : tensor<3x16xui8>
  %d = rowwise.fused_8bit_to_float %q : tensor<3x16xui8> -> tensor<3x8xf32>
  check.expect_eq_const %d, dense<[[0.0, 0.9882353, 2.0039215, 2.992157, 4.007843, 4.9960785, 6.0117645, 7.0], [8.0, 8.988235, 10.0039215, 10.992157, 12.007843, 12.9960785, 14.011765, 15.0], [16.0, 16.988235, 18.003922, 18.992157, 20.007843, 20.996078, 22.011765, 23.0]]> : tensor<3x8xf32>
  func.return
}

// -----

// 4 bits: q = rint(x / f16(7/15)) = [0, 2, 4, 6, 9, 11, 13, 15], low nibble first
// (0x20 0x64 0xB9 0xFD), then f16 scale 0.4666 (0x3777) and f16 bias.
func.func @fused_4bit() {
  %x = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<3x8xf32>
  %q = rowwise.float_to_fused_4bit %x : tensor<3x8xf32> -> tensor<3x8xui8>
  check.expect_eq_const %q, dense<[[32, 100, 185, 253, 119, 55, 0, 0], [32, 100, 185, 253, 119, 55, 0, 72], [32, 100, 185, 253, 119, 55, 0, 76]]> : tensor<3x8xui8>
  %d = rowwise.fused_4bit_to_float %q : tensor<3x8xui8> -> tensor<3x8xf32>
  check.expect_eq_const %d, dense<[[0.0, 0.93310547, 1.8662109, 2.7993164, 4.1989746, 5.13208, 6.0651855, 6.998291], [8.0, 8.933105, 9.866211, 10.799316, 12.198975, 13.13208, 14.065186, 14.998291], [16.0, 16.933105, 17.86621, 18.799316, 20.198975, 21.13208, 22.065186, 22.998291]]> : tensor<3x8xf32>
  func.return
}

// -----

// The fake 2-bit format: values 0..3 one per byte, f32 scale f16(7/3) = 2.333984375
// (0x40156000) and f32 bias.
func.func @fake_2bit() {
  %x = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<3x8xf32>
  %q = rowwise.float_to_fused_2bit_fake %x : tensor<3x8xf32> -> tensor<3x16xui8>
  check.expect_eq_const %q, dense<[[0, 0, 1, 1, 2, 2, 3, 3, 0, 96, 21, 64, 0, 0, 0, 0], [0, 0, 1, 1, 2, 2, 3, 3, 0, 96, 21, 64, 0, 0, 0, 65], [0, 0, 1, 1, 2, 2, 3, 3, 0, 96, 21, 64, 0, 0, 128, 65]]> : tensor<3x16xui8>
  func.return
}

// -----

// The seed's example: bitwidth 2, x = [0.3, -1.4, -0.6, 0.9, 1.0]: header [2, 3], min -1.4
// (0xBFB33333), max 1.0, then [x1|x3|x5|xxx] = 2 | 1 << 2 | 3 << 4 = 54 and
// [x2|x4|xxx|xxx] = 0 | 3 << 2 = 12 (round to nearest: levels -1.4, -0.6, 0.2, 1.0).
func.func @seed_example() {
  %x = stablehlo.constant dense<[[0.3, -1.4, -0.6, 0.9, 1.0]]> : tensor<1x5xf32>
  %q = rowwise.float_to_fused_rand %x {bitwidth = 2 : i64, random = false} : tensor<1x5xf32> -> tensor<1x12xui8>
  check.expect_eq_const %q, dense<[[2, 3, 51, 51, 179, 191, 0, 0, 128, 63, 54, 12]]> : tensor<1x12xui8>
  %d = rowwise.fused_rand_to_float %q {bitwidth = 2 : i64} : tensor<1x12xui8> -> tensor<1x5xf32>
  check.expect_eq_const %d, dense<[[0.20000005, -1.4, -0.59999996, 1.0, 1.0]]> : tensor<1x5xf32>
  %r = rowwise.float_to_fused_rand %x {bitwidth = 2 : i64, seed = 7 : i64} : tensor<1x5xf32> -> tensor<1x12xui8>
  check.expect_eq_const %r, dense<[[2, 3, 51, 51, 179, 191, 0, 0, 128, 63, 54, 12]]> : tensor<1x12xui8>
  func.return
}

// -----

// Bags over the 8-bit table: segments [row 0], [], [2, 2, 1]; weighted by [1, 0.5, -1, 2];
// the mean of the last segment is its sum times f32(1/3).
func.func @bags() {
  %x = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<3x8xf32>
  %t = rowwise.float_to_fused_8bit %x : tensor<3x8xf32> -> tensor<3x16xui8>
  %i = stablehlo.constant dense<[0, 2, 2, 1]> : tensor<4xi64>
  %l = stablehlo.constant dense<[1, 0, 3]> : tensor<3xi32>
  %w = stablehlo.constant dense<[1.0, 0.5, -1.0, 2.0]> : tensor<4xf32>
  %s = rowwise.sparse_lengths_sum %t, %i, %l {bits = 8 : i64} : (tensor<3x16xui8>, tensor<4xi64>, tensor<3xi32>) -> tensor<3x8xf32>
  check.expect_eq_const %s, dense<[[0.0, 0.9882353, 2.0039215, 2.992157, 4.007843, 4.9960785, 6.0117645, 7.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [40.0, 42.964706, 46.011765, 48.97647, 52.02353, 54.988235, 58.035294, 61.0]]> : tensor<3x8xf32>
  %ws = rowwise.sparse_lengths_weighted_sum %t, %w, %i, %l {bits = 8 : i64} : (tensor<3x16xui8>, tensor<4xf32>, tensor<4xi64>, tensor<3xi32>) -> tensor<3x8xf32>
  check.expect_eq_const %ws, dense<[[0.0, 0.9882353, 2.0039215, 2.992157, 4.007843, 4.9960785, 6.0117645, 7.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [8.0, 9.482353, 11.005882, 12.488235, 14.011765, 15.494118, 17.017647, 18.5]]> : tensor<3x8xf32>
  %m = rowwise.sparse_lengths_mean %t, %i, %l {bits = 8 : i64} : (tensor<3x16xui8>, tensor<4xi64>, tensor<3xi32>) -> tensor<3x8xf32>
  check.expect_eq_const %m, dense<[[0.0, 0.9882353, 2.0039215, 2.992157, 4.007843, 4.9960785, 6.0117645, 7.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [13.333334, 14.321569, 15.3372555, 16.32549, 17.341177, 18.329412, 19.345098, 20.333334]]> : tensor<3x8xf32>
  %o = stablehlo.constant dense<[0, 1, 1]> : tensor<3xi32>
  %e = rowwise.embedding_bag_rowwise_offsets %t, %i, %o weights %w {bits = 8 : i64} : (tensor<3x16xui8>, tensor<4xi64>, tensor<3xi32>, tensor<4xf32>) -> tensor<3x8xf32>
  check.expect_eq_const %e, dense<[[0.0, 0.9882353, 2.0039215, 2.992157, 4.007843, 4.9960785, 6.0117645, 7.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [8.0, 9.482353, 11.005882, 12.488235, 14.011765, 15.494118, 17.017647, 18.5]]> : tensor<3x8xf32>
  func.return
}

// -----

// The same segments over the 4-bit table.
func.func @bags_4bit() {
  %x = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<3x8xf32>
  %t = rowwise.float_to_fused_4bit %x : tensor<3x8xf32> -> tensor<3x8xui8>
  %i = stablehlo.constant dense<[0, 2, 2, 1]> : tensor<4xi32>
  %l = stablehlo.constant dense<[1, 0, 3]> : tensor<3xi64>
  %s = rowwise.sparse_lengths_sum %t, %i, %l {bits = 4 : i64} : (tensor<3x8xui8>, tensor<4xi32>, tensor<3xi64>) -> tensor<3x8xf32>
  check.expect_eq_const %s, dense<[[0.0, 0.93310547, 1.8662109, 2.7993164, 4.1989746, 5.13208, 6.0651855, 6.998291], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [40.0, 42.799316, 45.598633, 48.39795, 52.596924, 55.39624, 58.195557, 60.994873]]> : tensor<3x8xf32>
  func.return
}

// -----

// Rows whose extremes are signed zeros, infinities, a range that overflows: the expected
// bytes are torch 2.13's embedding_bag_{byte,4bit,2bit}_prepack output. fbgemm keeps the
// zero of the first 8-lane column group holding one (the last zero in that lane), else
// the first zero after them. At 8 bits row 0's bias is +0.0 (lane 1's last zero, column
// 9, not column 1's -0.0), row 1's -0.0 (column 16, the first after the lanes), row 2's
// (all zeros) -0.0 (lane 0's last zero, column 8).
func.func @edges() {
  %x = stablehlo.constant dense<[[1.0, -0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 1.0, 0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, -0.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -0.0, 0.0, 9.0], [0.0, -0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0], [-1.0, -2.0, -0.0, -3.0, -4.0, -5.0, -6.0, -7.0, -1.0, -2.0, 0.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -0.0, -9.0], [0x7F800000, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0], [3.e+38, -3.e+38, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 70000.0]]> : tensor<6x19xf32>
  %q = rowwise.float_to_fused_8bit %x : tensor<6x19xf32> -> tensor<6x27xui8>
  check.expect_eq_const %q, dense<[[32, 0, 64, 96, 128, 159, 191, 223, 32, 0, 64, 96, 128, 159, 191, 223, 0, 0, 255, 129, 128, 0, 61, 0, 0, 0, 0], [28, 57, 85, 113, 142, 170, 198, 227, 28, 57, 85, 113, 142, 170, 198, 227, 0, 0, 255, 145, 144, 16, 61, 0, 0, 0, 128], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128], [227, 198, 255, 170, 142, 113, 85, 57, 227, 198, 255, 170, 142, 113, 85, 57, 28, 255, 0, 145, 144, 16, 61, 0, 0, 16, 193], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 127, 0, 0, 128, 63], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 127, 230, 177, 97, 255]]> : tensor<6x27xui8>
  %x20 = stablehlo.constant dense<[[1.0, -0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 1.0, 0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, -0.0, 8.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -0.0, 0.0, 9.0, 1.0], [0.0, -0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0], [-1.0, -2.0, -0.0, -3.0, -4.0, -5.0, -6.0, -7.0, -1.0, -2.0, 0.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -0.0, -9.0, -1.0], [0x7F800000, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 0x7F800000], [3.e+38, -3.e+38, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 70000.0, 3.e+38]]> : tensor<6x20xf32>
  %q4 = rowwise.float_to_fused_4bit %x20 : tensor<6x20xf32> -> tensor<6x14xui8>
  check.expect_eq_const %q4, dense<[[2, 100, 152, 219, 2, 100, 152, 219, 0, 47, 68, 56, 0, 0], [50, 117, 168, 220, 50, 117, 168, 220, 0, 47, 205, 56, 0, 128], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60, 0, 128], [205, 175, 120, 53, 205, 175, 120, 53, 242, 208, 205, 56, 128, 200], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 124, 0, 60], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 124, 0, 252]]> : tensor<6x14xui8>
  %q2 = rowwise.float_to_fused_2bit %x20 : tensor<6x20xf32> -> tensor<6x9xui8>
  check.expect_eq_const %q2, dense<[[80, 234, 80, 234, 48, 85, 65, 0, 0], [84, 234, 84, 234, 48, 0, 66, 0, 128], [0, 0, 0, 0, 0, 0, 60, 0, 128], [187, 86, 187, 86, 204, 0, 66, 128, 200], [0, 0, 0, 0, 0, 0, 124, 0, 60], [0, 0, 0, 0, 0, 0, 124, 0, 252]]> : tensor<6x9xui8>
  %d = rowwise.fused_8bit_to_float %q : tensor<6x27xui8> -> tensor<6x19xf32>
  %db = stablehlo.bitcast_convert %d : (tensor<6x19xf32>) -> tensor<6x19xi32>
  check.expect_eq_const %db, dense<[[1065386113, 0, 1073774721, 1077985474, 1082163329, 1084202912, 1086308288, 1088413665, 1065386113, 0, 1073774721, 1077985474, 1082163329, 1084202912, 1086308288, 1088413665, 0, 0, 1090519040], [1065155838, 1073791169, 1077936129, 1082081088, 1084252257, 1086324737, 1088397216, 1090531377, 1065155838, 1073791169, 1077936129, 1082081088, 1084252257, 1086324737, 1088397216, 1090531377, 0, 0, 1091567616], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [-1082327817, -1073692481, 886964224, -1069547521, -1065402562, -1063231392, -1061158912, -1059086433, -1082327817, -1073692481, 886964224, -1069547521, -1065402562, -1063231392, -1061158912, -1059086433, -1056952272, 886964224, -1055916032], [-4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304], [-4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304, -4194304]]> : tensor<6x19xi32>
  func.return
}
