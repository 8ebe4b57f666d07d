// REQUIRES: onnx
// RUN: %python %S/Inputs/make_model.py truncated %t.truncated.onnx
// RUN: not qcomp-opt %t.truncated.onnx 2>&1 | FileCheck %s --check-prefix=BAD-BYTES
// RUN: %python %S/Inputs/make_model.py unsupported %t.unsupported.onnx
// RUN: not qcomp-opt %t.unsupported.onnx 2>&1 | FileCheck %s --check-prefix=BAD-OP
// RUN: %python %S/Inputs/make_model.py bad_attr %t.bad_attr.onnx
// RUN: not qcomp-opt %t.bad_attr.onnx 2>&1 | FileCheck %s --check-prefix=BAD-ATTR
// RUN: %python %S/Inputs/make_model.py bad_type %t.bad_type.onnx
// RUN: not qcomp-opt %t.bad_type.onnx 2>&1 | FileCheck %s --check-prefix=BAD-TYPE
// RUN: not qcomp-run %t.truncated.onnx 2>&1 | FileCheck %s --check-prefix=RESULT

// A model that cannot be imported gets one line naming the node, exit 1, no traceback.

// BAD-BYTES: qcomp-opt: error: {{.*}}.truncated.onnx: not a valid ONNX model (truncated or corrupt):
// BAD-BYTES-NOT: Traceback
// BAD-OP: qcomp-opt: error: {{.*}}.unsupported.onnx: node 'ein' (Einsum): unsupported op
// BAD-ATTR: qcomp-opt: error: {{.*}}.bad_attr.onnx: node 'q19' (QuantizeLinear): attribute 'block_size' is not in QuantizeLinear-19
// BAD-TYPE: qcomp-opt: error: {{.*}}.bad_type.onnx: node 'q10' (QuantizeLinear): {{.*}}tensor(float16)
// RESULT: qcomp-run: error: {{.*}}.truncated.onnx: not a valid ONNX model
