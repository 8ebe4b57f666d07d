// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// Every form of the quant types, printed as MLIR prints them (each CHECK line below
// was compared with upstream MLIR's printer, tosa-opt from LLVM 24).


func.func @t0(%arg0: tensor<4x!quant.uniform<i8:f32, 0.01:50>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t0
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 1.000000e-02:50>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 1.000000e-02:50>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 0.01:50>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t1(%arg0: tensor<4x!quant.uniform<i8:f32, 0.01>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t1
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 1.000000e-02>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 1.000000e-02>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 0.01>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t2(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t2
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 1.000000e+00>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// 17 significant digits when the short form would not read back
func.func @t3(%arg0: tensor<4x!quant.uniform<i8:f32, 0.0039188104517319626:-128>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t3
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 0.0039188104517319626:-128>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 0.0039188104517319626:-128>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 0.0039188104517319626:-128>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// APFloat's scientific form with a capital E
func.func @t4(%arg0: tensor<4x!quant.uniform<i8:f32, 1.5350925350904778E-5>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t4
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 1.5350925350904778E-5>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 1.5350925350904778E-5>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.5350925350904778E-5>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t5(%arg0: tensor<4x!quant.uniform<i8:f32, 1.5350925350904778e-05:3>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t5
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 1.5350925350904778E-5:3>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 1.5350925350904778E-5:3>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.5350925350904778e-05:3>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t6(%arg0: tensor<4x!quant.uniform<u8:f32, 0.0039215686274509803:128>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t6
  // CHECK-SAME: tensor<4x!quant.uniform<u8:f32, 0.0039215686274509803:128>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u8:f32, 0.0039215686274509803:128>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<u8:f32, 0.0039215686274509803:128>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t7(%arg0: tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t7
  // CHECK-SAME: tensor<4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t8(%arg0: tensor<4x!quant.uniform<u4<1:14>:f16, 2.0:7>>) -> tensor<4xf16> {
  // CHECK-LABEL: func.func @t8
  // CHECK-SAME: tensor<4x!quant.uniform<u4<1:14>:f16, 2.000000e+00:7>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u4<1:14>:f16, 2.000000e+00:7>> to tensor<4xf16>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<u4<1:14>:f16, 2.0:7>> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

func.func @t9(%arg0: tensor<4x!quant.uniform<i2:f32, 1.0:-1>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t9
  // CHECK-SAME: tensor<4x!quant.uniform<i2:f32, 1.000000e+00:-1>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i2:f32, 1.000000e+00:-1>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i2:f32, 1.0:-1>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t10(%arg0: tensor<4x!quant.uniform<u2:bf16, 0.25:3>>) -> tensor<4xbf16> {
  // CHECK-LABEL: func.func @t10
  // CHECK-SAME: tensor<4x!quant.uniform<u2:bf16, 2.500000e-01:3>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u2:bf16, 2.500000e-01:3>> to tensor<4xbf16>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<u2:bf16, 0.25:3>> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

func.func @t11(%arg0: tensor<4x!quant.uniform<i4:f32, 0.1>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t11
  // CHECK-SAME: tensor<4x!quant.uniform<i4:f32, 1.000000e-01>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i4:f32, 1.000000e-01>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i4:f32, 0.1>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t12(%arg0: tensor<4x!quant.uniform<i16:f32, 3.0517578125E-5>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t12
  // CHECK-SAME: tensor<4x!quant.uniform<i16:f32, 3.0517578125E-5>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i16:f32, 3.0517578125E-5>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i16:f32, 3.0517578125E-5>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t13(%arg0: tensor<4x!quant.uniform<u16:f64, 1.0:65535>>) -> tensor<4xf64> {
  // CHECK-LABEL: func.func @t13
  // CHECK-SAME: tensor<4x!quant.uniform<u16:f64, 1.000000e+00:65535>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u16:f64, 1.000000e+00:65535>> to tensor<4xf64>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<u16:f64, 1.0:65535>> to tensor<4xf64>
  return %0 : tensor<4xf64>
}

// f64 expressed types take f64 scales
func.func @t14(%arg0: tensor<4x!quant.uniform<i32:f64, 1.0e-300>>) -> tensor<4xf64> {
  // CHECK-LABEL: func.func @t14
  // CHECK-SAME: tensor<4x!quant.uniform<i32:f64, 1.000000e-300>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i32:f64, 1.000000e-300>> to tensor<4xf64>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i32:f64, 1.0e-300>> to tensor<4xf64>
  return %0 : tensor<4xf64>
}

func.func @t15(%arg0: tensor<4x!quant.uniform<u32:f32, 1.0:4294967295>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t15
  // CHECK-SAME: tensor<4x!quant.uniform<u32:f32, 1.000000e+00:4294967295>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u32:f32, 1.000000e+00:4294967295>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<u32:f32, 1.0:4294967295>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t16(%arg0: tensor<4x!quant.uniform<i32:f32, 1.0:-2147483648>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t16
  // CHECK-SAME: tensor<4x!quant.uniform<i32:f32, 1.000000e+00:-2147483648>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i32:f32, 1.000000e+00:-2147483648>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i32:f32, 1.0:-2147483648>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// a scale written as the hex bit pattern of a double
func.func @t17(%arg0: tensor<4x!quant.uniform<i8:f64, 0x3F847AE147AE147B>>) -> tensor<4xf64> {
  // CHECK-LABEL: func.func @t17
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f64, 1.000000e-02>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f64, 1.000000e-02>> to tensor<4xf64>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f64, 0x3F847AE147AE147B>> to tensor<4xf64>
  return %0 : tensor<4xf64>
}

func.func @t18(%arg0: tensor<1x3x!quant.uniform<i8:f32:1, {0.2:20, 0.1:10, 0.3:30}>>) -> tensor<1x3xf32> {
  // CHECK-LABEL: func.func @t18
  // CHECK-SAME: tensor<1x3x!quant.uniform<i8:f32:1, {2.000000e-01:20,1.000000e-01:10,3.000000e-01:30}>>
  // CHECK: quant.dcast %{{.*}} : tensor<1x3x!quant.uniform<i8:f32:1, {2.000000e-01:20,1.000000e-01:10,3.000000e-01:30}>> to tensor<1x3xf32>
  %0 = quant.dcast %arg0 : tensor<1x3x!quant.uniform<i8:f32:1, {0.2:20, 0.1:10, 0.3:30}>> to tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

func.func @t19(%arg0: tensor<2x!quant.uniform<i8:f32:0, {0.2, 0.1}>>) -> tensor<2xf32> {
  // CHECK-LABEL: func.func @t19
  // CHECK-SAME: tensor<2x!quant.uniform<i8:f32:0, {2.000000e-01,1.000000e-01}>>
  // CHECK: quant.dcast %{{.*}} : tensor<2x!quant.uniform<i8:f32:0, {2.000000e-01,1.000000e-01}>> to tensor<2xf32>
  %0 = quant.dcast %arg0 : tensor<2x!quant.uniform<i8:f32:0, {0.2, 0.1}>> to tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @t20(%arg0: tensor<1x1x2x!quant.uniform<u8<1:255>:f32:2, {2.0:128,3.0:129}>>) -> tensor<1x1x2xf32> {
  // CHECK-LABEL: func.func @t20
  // CHECK-SAME: tensor<1x1x2x!quant.uniform<u8<1:255>:f32:2, {2.000000e+00:128,3.000000e+00:129}>>
  // CHECK: quant.dcast %{{.*}} : tensor<1x1x2x!quant.uniform<u8<1:255>:f32:2, {2.000000e+00:128,3.000000e+00:129}>> to tensor<1x1x2xf32>
  %0 = quant.dcast %arg0 : tensor<1x1x2x!quant.uniform<u8<1:255>:f32:2, {2.0:128,3.0:129}>> to tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

func.func @t21(%arg0: tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>>) -> tensor<2x4xf32> {
  // CHECK-LABEL: func.func @t21
  // CHECK-SAME: tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {{[{][{]}}1.000000e+00:1, 2.000000e+00:2}, {3.000000e+00:3, 4.000000e+00:4}}>>
  // CHECK: quant.dcast %{{.*}} : tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {{[{][{]}}1.000000e+00:1, 2.000000e+00:2}, {3.000000e+00:3, 4.000000e+00:4}}>> to tensor<2x4xf32>
  %0 = quant.dcast %arg0 : tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>> to tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

func.func @t22(%arg0: tensor<3x4x!quant.uniform<i8:f32:{1:2}, {{1.0, 2.0}}>>) -> tensor<3x4xf32> {
  // CHECK-LABEL: func.func @t22
  // CHECK-SAME: tensor<3x4x!quant.uniform<i8:f32:{1:2}, {{[{][{]}}1.000000e+00, 2.000000e+00}}>>
  // CHECK: quant.dcast %{{.*}} : tensor<3x4x!quant.uniform<i8:f32:{1:2}, {{[{][{]}}1.000000e+00, 2.000000e+00}}>> to tensor<3x4xf32>
  %0 = quant.dcast %arg0 : tensor<3x4x!quant.uniform<i8:f32:{1:2}, {{1.0, 2.0}}>> to tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @t23(%arg0: tensor<4x!quant.uniform<i8:f32:{0:2}, {1.0, 2.0}>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t23
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32:{0:2}, {1.000000e+00, 2.000000e+00}>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32:{0:2}, {1.000000e+00, 2.000000e+00}>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32:{0:2}, {1.0, 2.0}>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// sub-channel scales are stored in the expressed type (bf16 here)
func.func @t24(%arg0: tensor<2x4x!quant.uniform<i8:bf16:{0:1, 1:2}, {{0.1, 0.2}, {0.3, 0.4}}>>) -> tensor<2x4xbf16> {
  // CHECK-LABEL: func.func @t24
  // CHECK-SAME: tensor<2x4x!quant.uniform<i8:bf16:{0:1, 1:2}, {{[{][{]}}1.000980e-01, 2.001950e-01}, {3.007810e-01, 4.003910e-01}}>>
  // CHECK: quant.dcast %{{.*}} : tensor<2x4x!quant.uniform<i8:bf16:{0:1, 1:2}, {{[{][{]}}1.000980e-01, 2.001950e-01}, {3.007810e-01, 4.003910e-01}}>> to tensor<2x4xbf16>
  %0 = quant.dcast %arg0 : tensor<2x4x!quant.uniform<i8:bf16:{0:1, 1:2}, {{0.1, 0.2}, {0.3, 0.4}}>> to tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

func.func @t25(%arg0: tensor<2x4x!quant.uniform<i8:f16:{1:2, 0:1}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>>) -> tensor<2x4xf16> {
  // CHECK-LABEL: func.func @t25
  // CHECK-SAME: tensor<2x4x!quant.uniform<i8:f16:{1:2, 0:1}, {{[{][{]}}1.000000e+00:1, 2.000000e+00:2}, {3.000000e+00:3, 4.000000e+00:4}}>>
  // CHECK: quant.dcast %{{.*}} : tensor<2x4x!quant.uniform<i8:f16:{1:2, 0:1}, {{[{][{]}}1.000000e+00:1, 2.000000e+00:2}, {3.000000e+00:3, 4.000000e+00:4}}>> to tensor<2x4xf16>
  %0 = quant.dcast %arg0 : tensor<2x4x!quant.uniform<i8:f16:{1:2, 0:1}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>> to tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

func.func @t26(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0E+20>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t26
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 1.000000e+20>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 1.000000e+20>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0E+20>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @t27(%arg0: tensor<4x!quant.uniform<i8:f32, 123456.789>>) -> tensor<4xf32> {
  // CHECK-LABEL: func.func @t27
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 123456.789>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 123456.789>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 123456.789>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// smallest subnormal double; MLIR prints it as 4.940660e-324 (reads back)
func.func @t28(%arg0: tensor<4x!quant.uniform<i8:f64, 4.9406564584124654E-324>>) -> tensor<4xf64> {
  // CHECK-LABEL: func.func @t28
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f64, 4.940660e-324>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f64, 4.940660e-324>> to tensor<4xf64>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f64, 4.9406564584124654E-324>> to tensor<4xf64>
  return %0 : tensor<4xf64>
}

func.func @t29(%arg0: tensor<4x!quant.uniform<i8:f64, 1.7976931348623157E+308>>) -> tensor<4xf64> {
  // CHECK-LABEL: func.func @t29
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f64, 1.7976931348623157E+308>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f64, 1.7976931348623157E+308>> to tensor<4xf64>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f64, 1.7976931348623157E+308>> to tensor<4xf64>
  return %0 : tensor<4xf64>
}

func.func @t30(%arg0: tensor<4x!quant.uniform<i8:f16, 65504.0>>) -> tensor<4xf16> {
  // CHECK-LABEL: func.func @t30
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f16, 6.550400e+04>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f16, 6.550400e+04>> to tensor<4xf16>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f16, 65504.0>> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

func.func @t31(%arg0: tensor<4x!quant.uniform<i8:f16, 5.9604644775390625E-8>>) -> tensor<4xf16> {
  // CHECK-LABEL: func.func @t31
  // CHECK-SAME: tensor<4x!quant.uniform<i8:f16, 5.9604644775390625E-8>>
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<i8:f16, 5.9604644775390625E-8>> to tensor<4xf16>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f16, 5.9604644775390625E-8>> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

func.func @t32(%arg0: tensor<4x!quant.any<i8:f32>>) -> tensor<4x!quant.any<i8:f32>> {
  // CHECK-LABEL: func.func @t32
  // CHECK-SAME: tensor<4x!quant.any<i8:f32>>
  return %arg0 : tensor<4x!quant.any<i8:f32>>
}

func.func @t33(%arg0: tensor<4x!quant.any<i8<-8:7>:f32>>) -> tensor<4x!quant.any<i8<-8:7>:f32>> {
  // CHECK-LABEL: func.func @t33
  // CHECK-SAME: tensor<4x!quant.any<i8<-8:7>:f32>>
  return %arg0 : tensor<4x!quant.any<i8<-8:7>:f32>>
}

func.func @t34(%arg0: tensor<4x!quant.any<u4>>) -> tensor<4x!quant.any<u4>> {
  // CHECK-LABEL: func.func @t34
  // CHECK-SAME: tensor<4x!quant.any<u4>>
  return %arg0 : tensor<4x!quant.any<u4>>
}

func.func @t35(%arg0: tensor<4x!quant.calibrated<f32<-0.998:1.2321>>>) -> tensor<4x!quant.calibrated<f32<-0.998:1.2321>>> {
  // CHECK-LABEL: func.func @t35
  // CHECK-SAME: tensor<4x!quant.calibrated<f32<-0.998:1.232100e+00>>>
  return %arg0 : tensor<4x!quant.calibrated<f32<-0.998:1.2321>>>
}

func.func @t36(%arg0: tensor<4x!quant.calibrated<f16<-1.0:1.0>>>) -> tensor<4x!quant.calibrated<f16<-1.0:1.0>>> {
  // CHECK-LABEL: func.func @t36
  // CHECK-SAME: tensor<4x!quant.calibrated<f16<-1.000000e+00:1.000000e+00>>>
  return %arg0 : tensor<4x!quant.calibrated<f16<-1.0:1.0>>>
}

// The ops, custom and generic.
// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<2x3xf32>, %s: f32, %i: tensor<2x3xi8>, %u: tensor<2x3xi8>) {
  // CHECK: quant.qcast %{{.*}} : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 1.000000e-02:50>>
  // GENERIC: "quant.qcast"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e-02:50>>
  %0 = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.01:50>>
  // CHECK: quant.dcast %{{.*}} : tensor<2x3x!quant.uniform<i8:f32, 1.000000e-02:50>> to tensor<2x3xf32>
  // GENERIC: "quant.dcast"(%{{.*}}) : (tensor<2x3x!quant.uniform<i8:f32, 1.000000e-02:50>>) -> tensor<2x3xf32>
  %1 = quant.dcast %0 : tensor<2x3x!quant.uniform<i8:f32, 0.01:50>> to tensor<2x3xf32>
  // CHECK: quant.scast %{{.*}} : tensor<2x3x!quant.uniform<i8:f32, 1.000000e-02:50>> to tensor<2x3xi8>
  // GENERIC: "quant.scast"(%{{.*}}) : (tensor<2x3x!quant.uniform<i8:f32, 1.000000e-02:50>>) -> tensor<2x3xi8>
  %2 = quant.scast %0 : tensor<2x3x!quant.uniform<i8:f32, 0.01:50>> to tensor<2x3xi8>
  // CHECK: quant.scast %{{.*}} : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8:f32:1, {1.000000e+00,2.000000e+00:-3,5.000000e-01}>>
  %3 = "quant.scast"(%i) : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 2.0:-3, 0.5}>>
  // an unsigned type over the signless storage of its width
  // CHECK: quant.scast %{{.*}} : tensor<2x3xi8> to tensor<2x3x!quant.uniform<u8:f32, 3.906250e-03:128>>
  %4 = quant.scast %u : tensor<2x3xi8> to tensor<2x3x!quant.uniform<u8:f32, 0.00390625:128>>
  // scalars
  // CHECK: quant.qcast %{{.*}} : f32 to !quant.uniform<i8:f32, 2.500000e-01>
  // GENERIC: "quant.qcast"(%{{.*}}) : (f32) -> !quant.uniform<i8:f32, 2.500000e-01>
  %5 = quant.qcast %s : f32 to !quant.uniform<i8:f32, 0.25>
  // sub-channel through qcast
  // CHECK: quant.qcast %{{.*}} : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32:{0:1, 1:3}, {{[{][{]}}1.000000e+00}, {2.000000e+00:1}}>>
  %6 = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32:{0:1, 1:3}, {{1.0}, {2.0:1}}>>
  // !quant.any and !quant.calibrated are quantized types for qcast too
  // CHECK: quant.qcast %{{.*}} : tensor<2x3xf32> to tensor<2x3x!quant.any<i8<-8:7>:f32>>
  %7 = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.any<i8<-8:7>:f32>>
  // CHECK: quant.qcast %{{.*}} : tensor<2x3xf32> to tensor<2x3x!quant.calibrated<f32<-0.998:1.232100e+00>>>
  %8 = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.calibrated<f32<-0.998:1.2321>>>
  return
}
