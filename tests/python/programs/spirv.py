"""SPIR-V modules for the simulator's built-in kernels, written by the programs that launch them
(opcodes and operands from the SPIR-V specification 1.6): a module declares its entry points and
their parameters, which is all the simulator reads of it."""
import struct


def module(kernels):
    """A module declaring `kernels`: (name, parameter kinds), a kind being "p" for a global
    pointer or "u" for a 32-bit integer."""
    words = [0x07230203, 0x00010000, 0, 1000, 0]

    def op(code, *operands):
        words.append(((len(operands) + 1) << 16) | code)
        words.extend(operands)

    op(14, 2, 2)  # OpMemoryModel Physical64 OpenCL
    for index, (name, _) in enumerate(kernels):
        raw = name.encode() + b"\0"
        raw += b"\0" * (-len(raw) % 4)
        op(15, 6, 100 + index, *struct.unpack(f"<{len(raw) // 4}I", raw))  # OpEntryPoint Kernel
    op(21, 10, 32, 0)  # OpTypeInt 32
    op(32, 11, 5, 10)  # OpTypePointer CrossWorkgroup
    parameter = 500
    for index, (_, kinds) in enumerate(kernels):
        op(54, 1, 100 + index, 0, 2)  # OpFunction
        for kind in kinds:
            op(55, 11 if kind == "p" else 10, parameter)  # OpFunctionParameter
            parameter += 1
    return struct.pack(f"<{len(words)}I", *words)
