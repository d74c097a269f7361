"""A right-hand side (or Jacobian) passed to the kernels as a plain integer: the address of its compiled entry
point, turned back into a numba first-class function inside compiled code.

Passing a first-class function object from Python costs about 4 µs per call: numba's unboxing calls back into
Python twice (the cfunc-wrapper and the jit addresses, each after unpickling the signature). An integer is
unboxed in nanoseconds. The addresses are looked up once per function (``ode.CompiledFunction``), and the kernels call
the function through its numba entry point (``jit_addr``: numba's own calling convention, so an exception raised in the
function propagates to the caller) rather than through the C wrapper.
"""
from numba.core import cgutils, types
from numba.extending import intrinsic

RHS_SIGNATURE = types.float64[::1](types.float64, types.float64[::1], types.float64[::1])
JAC_SIGNATURE = types.float64[:, ::1](types.float64, types.float64[::1], types.float64[::1])


def _from_address(signature):
    function_type = types.FunctionType(signature)

    @intrinsic
    def from_address(typingctx, jit_address):
        if not isinstance(jit_address, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            voidptr = context.get_value_type(types.voidptr)
            function = cgutils.create_struct_proxy(function_type)(context, builder)
            function.c_addr = voidptr(None)
            function.py_addr = voidptr(None)
            function.jit_addr = builder.inttoptr(args[0], voidptr)
            return function._getvalue()

        return function_type(jit_address), codegen

    return from_address


#: ``rhs_from_address(address)`` / ``jac_from_address(address)``: the first-class function at a jit address
#: (``ode.CompiledFunction.jit_address``), for numba code.
rhs_from_address = _from_address(RHS_SIGNATURE)
jac_from_address = _from_address(JAC_SIGNATURE)
