// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// Every float type MLIR takes as an expressed type but f80 and f128 (MLIR aborts on
// those): the narrow ones bound the scale by their smallest subnormal and largest
// value (expressed-types-invalid.mlir). Passes and qcomp-run compute in f16, bf16, f32
// and f64 only and say so.

// CHECK-LABEL: func.func @narrow
// CHECK-SAME:    tensor<4x!quant.uniform<i8:f8E5M2, 2.000000e+00:1>>
// CHECK-SAME:    tensor<4x!quant.uniform<u4:f8E4M3FN:0, {1.250000e-01,4.480000e+02,1.000000e+00,2.000000e+00}>>
// CHECK-SAME:    tensor<4x!quant.uniform<i8:f4E2M1FN, 5.000000e-01>>
// CHECK-SAME:    tensor<4x!quant.uniform<i16:f6E3M2FN, 2.800000e+01:-3>>
// CHECK-SAME:    !quant.uniform<i8:f8E8M0FNU, 3.000000e+00>
// CHECK-SAME:    !quant.uniform<i8:tf32, 9.9999999999999992E-41>
func.func @narrow(%arg0: tensor<4x!quant.uniform<i8:f8E5M2, 2.0:1>>,
                  %arg1: tensor<4x!quant.uniform<u4:f8E4M3FN:0, {0.125, 448.0, 1.0, 2.0}>>,
                  %arg2: tensor<4x!quant.uniform<i8:f4E2M1FN, 0.5>>,
                  %arg3: tensor<4x!quant.uniform<i16:f6E3M2FN, 28.0:-3>>,
                  %arg4: !quant.uniform<i8:f8E8M0FNU, 3.0>,
                  %arg5: !quant.uniform<i8:tf32, 1.0e-40>) {
  return
}

// CHECK-LABEL: func.func @casts
// CHECK:         quant.qcast %arg0 : tensor<4xf8E5M2> to tensor<4x!quant.uniform<i8:f8E5M2, 2.000000e+00:1>>
// CHECK:         quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f8E5M2, 2.000000e+00:1>> to tensor<4xf8E5M2>
func.func @casts(%arg0: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  %0 = quant.qcast %arg0 : tensor<4xf8E5M2> to tensor<4x!quant.uniform<i8:f8E5M2, 2.0:1>>
  %1 = quant.dcast %0 : tensor<4x!quant.uniform<i8:f8E5M2, 2.0:1>> to tensor<4xf8E5M2>
  return %1 : tensor<4xf8E5M2>
}
