// cl-std: CL1.2 (a function pointer is then a private pointer, which SPIR-V allows; OpenCL C
// 2.0 makes it generic).
// A function a kernel calls through a pointer the host got from the module
// (zeModuleGetFunctionPointer).
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

typedef int (*unary)(int);

int twice(int value) { return value * 2; }

kernel void call_through(long function, global int *out) {
    out[0] = ((unary)function)(21);
}
