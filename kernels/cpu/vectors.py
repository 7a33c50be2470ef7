"""Vectors of games for the lane kernels: one game a 64-bit lane, the lanes of a vector register.

Two Numba types with LLVM vector data models: `Lanes(n)`, n unsigned 64-bit integers
(`<n x i64>`), and `Mask(n)`, n booleans (`<n x i1>`). Their operations emit the LLVM vector
instruction itself (LLVM's auto-vectoriser scalarises a plain per-lane loop with a count of
trailing zeros in it), so the kernels (kernels/cpu/lanes.py, lanes_nseat.py) are ordinary njit
code over these values: LLVM keeps them in registers and turns a select of an operation into a
masked instruction where the CPU has them. Only target-independent LLVM instructions and
intrinsics are emitted: Numba compiles for the host CPU, so LLVM lowers a vector wider than
the CPU's registers into several narrower ones, and never emits an instruction the CPU lacks.

Operators on Lanes (either side may be a plain integer, broadcast to every lane): `+ - & | ^`,
the shifts `<< >>`, and the unsigned comparisons `== != < <= > >=`, which give a Mask. On
Masks: `& | ^` and `~`. Shift counts must stay below 64 in every lane: LLVM's shift by 64 or
more is poison, not zero (the kernels keep their counts below 64 by construction and say why).

The functions: `splat(x, n)`, `iota(n)`, `cttz`, `ctlz` (64 for a zero lane), `popcount`, `umin`,
`select`, `extract`, `insert`, `any_lane`, `lane_bits` (a Mask as an integer, lane i at bit i),
`lane_mask` (the lanes of an integer's bits) and `deck_masks` (64 cards' court and value masks
in one load).
"""

from __future__ import annotations

import operator

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature
from numba.extending import intrinsic, models, register_model

_I1 = ir.IntType(1)
_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


class Lanes(types.Type):
    """n unsigned 64-bit lanes: `<n x i64>`."""

    def __init__(self, count: int) -> None:
        self.count = count
        super().__init__(name=f"Lanes({count})")


class Mask(types.Type):
    """n lanes of one bit: `<n x i1>`, what comparing Lanes gives and select takes."""

    def __init__(self, count: int) -> None:
        self.count = count
        super().__init__(name=f"Mask({count})")


@register_model(Lanes)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(_I64, fe_type.count))


@register_model(Mask)
class _MaskModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(_I1, fe_type.count))


def _broadcast(builder, value, count: int):
    """A scalar i64 in every one of `count` lanes."""
    vector = ir.VectorType(_I64, count)
    first = builder.insert_element(ir.Constant(vector, ir.Undefined), value, _I32(0))
    zeros = ir.Constant(ir.VectorType(_I32, count), [0] * count)
    return builder.shuffle_vector(first, first, zeros)


def _operand(context, builder, value, typ, count: int):
    """An operand as a vector: Lanes as they are, an integer broadcast."""
    if isinstance(typ, Lanes):
        return value
    return _broadcast(builder, context.cast(builder, value, typ, types.uint64), count)


def _lanes_of(args) -> Lanes | None:
    """The Lanes type of a binary operation's operands (one may be an integer); None if none."""
    a, b = args
    if isinstance(a, Lanes) and (b == a or isinstance(b, types.Integer)):
        return a
    if isinstance(b, Lanes) and isinstance(a, types.Integer):
        return b
    return None


_ARITHMETIC = {
    operator.add: "add",
    operator.sub: "sub",
    operator.and_: "and_",
    operator.or_: "or_",
    operator.xor: "xor",
    operator.lshift: "shl",
    operator.rshift: "lshr",
}
_COMPARE = {
    operator.eq: "==",
    operator.ne: "!=",
    operator.lt: "<",
    operator.le: "<=",
    operator.gt: ">",
    operator.ge: ">=",
}
_LOGIC = {operator.and_: "and_", operator.or_: "or_", operator.xor: "xor"}


def _lanes_arithmetic(op, method: str) -> None:
    @infer_global(op)
    class _Typed(AbstractTemplate):
        def generic(self, args, kws):
            lanes = _lanes_of(args) if len(args) == 2 and not kws else None
            return None if lanes is None else signature(lanes, *args)

    def lower(context, builder, sig, args):
        n = sig.return_type.count
        a, b = (_operand(context, builder, v, t, n) for v, t in zip(args, sig.args, strict=True))
        return getattr(builder, method)(a, b)

    for pair in ((Lanes, Lanes), (Lanes, types.Integer), (types.Integer, Lanes)):
        lower_builtin(op, *pair)(lower)


def _lanes_compare(op, symbol: str) -> None:
    @infer_global(op)
    class _Typed(AbstractTemplate):
        def generic(self, args, kws):
            lanes = _lanes_of(args) if len(args) == 2 and not kws else None
            return None if lanes is None else signature(Mask(lanes.count), *args)

    def lower(context, builder, sig, args):
        n = sig.return_type.count
        a, b = (_operand(context, builder, v, t, n) for v, t in zip(args, sig.args, strict=True))
        return builder.icmp_unsigned(symbol, a, b)

    for pair in ((Lanes, Lanes), (Lanes, types.Integer), (types.Integer, Lanes)):
        lower_builtin(op, *pair)(lower)


def _mask_logic(op, method: str) -> None:
    @infer_global(op)
    class _Typed(AbstractTemplate):
        def generic(self, args, kws):
            if len(args) == 2 and isinstance(args[0], Mask) and args[0] == args[1]:
                return signature(args[0], *args)
            return None

    @lower_builtin(op, Mask, Mask)
    def lower(context, builder, sig, args):
        return getattr(builder, method)(*args)


for _op, _method in _ARITHMETIC.items():
    _lanes_arithmetic(_op, _method)
for _op, _symbol in _COMPARE.items():
    _lanes_compare(_op, _symbol)
for _op, _method in _LOGIC.items():
    _mask_logic(_op, _method)


@infer_global(operator.invert)
class _Invert(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 1 and isinstance(args[0], (Mask, Lanes)):
            return signature(args[0], *args)
        return None


@lower_builtin(operator.invert, Mask)
@lower_builtin(operator.invert, Lanes)
def _lower_invert(context, builder, sig, args):
    return builder.not_(args[0])


def _count(n) -> int | None:
    """A lane count given as a compile-time integer (a literal or a module constant)."""
    return n.literal_value if isinstance(n, types.IntegerLiteral) else None


@intrinsic
def splat(typingctx, x, n):
    """`x` in each of `n` lanes (n a compile-time constant)."""
    count = _count(n)
    if count is None or not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return _broadcast(builder, context.cast(builder, args[0], sig.args[0], types.uint64), count)

    return Lanes(count)(x, n), codegen


@intrinsic
def iota(typingctx, n):
    """0, 1, ..., n - 1, lane i holding i."""
    count = _count(n)
    if count is None:
        return None

    def codegen(context, builder, sig, args):
        return ir.Constant(ir.VectorType(_I64, count), list(range(count)))

    return Lanes(count)(n), codegen


def _bit_count(name: str):
    """LLVM's llvm.cttz or llvm.ctlz on every lane (declared by its full vector name, which
    llvmlite's declare_intrinsic does not build for vectors), 64 for a zero lane."""

    def typer(typingctx, v):
        if not isinstance(v, Lanes):
            return None

        def codegen(context, builder, sig, args):
            vector = args[0].type
            fnty = ir.FunctionType(vector, [vector, _I1])
            fn = cgutils.get_or_insert_function(builder.module, fnty, f"{name}.v{vector.count}i64")
            return builder.call(fn, [args[0], _I1(0)])

        return v(v), codegen

    return typer


cttz = intrinsic(_bit_count("llvm.cttz"))
cttz.__doc__ = "Trailing zeros of every lane (64 for a zero lane)."
ctlz = intrinsic(_bit_count("llvm.ctlz"))
ctlz.__doc__ = "Leading zeros of every lane (64 for a zero lane)."


@intrinsic
def popcount(typingctx, v):
    """Set bits of every lane, or of a uint64 (LLVM's llvm.ctpop)."""
    if not isinstance(v, Lanes) and v != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        kind = args[0].type
        fnty = ir.FunctionType(kind, [kind])
        name = f"llvm.ctpop.v{kind.count}i64" if isinstance(v, Lanes) else "llvm.ctpop.i64"
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)

    return v(v), codegen


@intrinsic
def umin(typingctx, a, b):
    """The unsigned minimum, lane by lane (`b` may be an integer)."""
    lanes = _lanes_of((a, b))
    if lanes is None:
        return None

    def codegen(context, builder, sig, args):
        n = lanes.count
        x, y = (_operand(context, builder, v, t, n) for v, t in zip(args, sig.args, strict=True))
        return builder.select(builder.icmp_unsigned("<", x, y), x, y)

    return lanes(a, b), codegen


@intrinsic
def select(typingctx, mask, a, b):
    """`a` in the lanes `mask` sets, `b` in the others (either or both may be integers)."""
    if not isinstance(mask, Mask):
        return None
    lanes = _lanes_of((a, b))
    if lanes is None and isinstance(a, types.Integer) and isinstance(b, types.Integer):
        lanes = Lanes(mask.count)
    if lanes is None or mask.count != lanes.count:
        return None

    def codegen(context, builder, sig, args):
        n = lanes.count
        pairs = zip(args[1:], sig.args[1:], strict=True)
        x, y = (_operand(context, builder, v, t, n) for v, t in pairs)
        return builder.select(args[0], x, y)

    return lanes(mask, a, b), codegen


@intrinsic
def extract(typingctx, v, lane):
    """Lane `lane` of `v`, as a uint64."""
    if not isinstance(v, Lanes) or not isinstance(lane, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        index = context.cast(builder, args[1], sig.args[1], types.int32)
        return builder.extract_element(args[0], index)

    return types.uint64(v, lane), codegen


@intrinsic
def insert(typingctx, v, lane, x):
    """`v` with `x` in lane `lane`: a select of a broadcast (one masked move where the CPU has
    masks), not LLVM's insertelement at a variable index, which goes through memory."""
    if not isinstance(v, Lanes) or not isinstance(lane, types.Integer):
        return None
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        n = v.count
        at = _broadcast(builder, context.cast(builder, args[1], sig.args[1], types.uint64), n)
        lanes = ir.Constant(ir.VectorType(_I64, n), list(range(n)))
        value = _broadcast(builder, context.cast(builder, args[2], sig.args[2], types.uint64), n)
        return builder.select(builder.icmp_unsigned("==", lanes, at), value, args[0])

    return v(v, lane, x), codegen


def _mask_integer(builder, mask, count: int):
    """A Mask's lanes as the bits of an i64, lane i at bit i."""
    return builder.zext(builder.bitcast(mask, ir.IntType(count)), _I64)


@intrinsic
def lane_bits(typingctx, mask):
    """The lanes `mask` sets as the bits of an integer, lane i at bit i."""
    if not isinstance(mask, Mask):
        return None

    def codegen(context, builder, sig, args):
        return _mask_integer(builder, args[0], mask.count)

    return types.uint64(mask), codegen


@intrinsic
def any_lane(typingctx, mask):
    """Whether `mask` sets any lane."""
    if not isinstance(mask, Mask):
        return None

    def codegen(context, builder, sig, args):
        bits = builder.bitcast(args[0], ir.IntType(mask.count))
        return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(mask.count), 0))

    return types.boolean(mask), codegen


@intrinsic
def lane_mask(typingctx, bits, n):
    """The Mask of `n` lanes setting lane i where bit i of `bits` is set."""
    count = _count(n)
    if count is None or not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        word = context.cast(builder, args[0], sig.args[0], types.uint64)
        return builder.bitcast(builder.trunc(word, ir.IntType(count)), ir.VectorType(_I1, count))

    return Mask(count)(bits, n), codegen


@intrinsic
def deck_masks(typingctx, buf, offset):
    """The 64 cards at buf[offset:] (penalty values 0-4, uint8) as three uint64 masks, card i at
    bit i: court (value > 0), and the two bits of value - 1 for court cards (bit 0 for Q and A,
    bit 1 for K and A). One 64-byte load and three comparisons of every byte; the caller
    guarantees the 64 bytes lie inside the buffer."""
    if not isinstance(buf, types.Array) or buf.dtype != types.uint8 or buf.ndim != 1:
        return None
    if not isinstance(offset, types.Integer):
        return None
    masks = types.UniTuple(types.uint64, 3)

    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        at = context.cast(builder, args[1], sig.args[1], types.int64)
        start = builder.gep(array.data, [at])
        bytes_ = ir.VectorType(_I8, 64)
        loaded = builder.load(builder.bitcast(start, bytes_.as_pointer()), align=1)

        def where(symbol, value):
            return builder.icmp_unsigned(symbol, loaded, ir.Constant(bytes_, [value] * 64))

        court = where("!=", 0)
        bit0 = builder.or_(where("==", 2), where("==", 4))
        bit1 = where(">=", 3)
        words = [builder.bitcast(m, _I64) for m in (court, bit0, bit1)]
        return context.make_tuple(builder, masks, words)

    return masks(buf, offset), codegen
