// SPDX-License-Identifier: GPL-3.0-or-later
/// Lane operations on 8-float vectors for the mixer's kernel (`MixerKernel.swift`,
/// `VoiceBlock.swift`), each a single instruction or two on x86-64.

/// Lanes 0, 2 of each 128-bit half of `p`, then of `q`: (p0, p2, q0, q2, p4, p6, q4, q6),
/// one `shufps`.
@_noLocks @inline(__always)
func evens(_ p: SIMD8<Float>, _ q: SIMD8<Float>) -> SIMD8<Float> { SIMD8(p[0], p[2], q[0], q[2], p[4], p[6], q[4], q[6]) }
/// Lanes 1, 3 of each 128-bit half of `p`, then of `q`: (p1, p3, q1, q3, p5, p7, q5, q7).
@_noLocks @inline(__always)
func odds(_ p: SIMD8<Float>, _ q: SIMD8<Float>) -> SIMD8<Float> { SIMD8(p[1], p[3], q[1], q[3], p[5], p[7], q[5], q[7]) }

/// The 64-bit words at byte offsets `a`, `b`, `c`, `d` from `base`, as one 8-float
/// vector (4 loads): two floats of a cubic row, or a whole 16-bit level row, per word.
@_noLocks @inline(__always)
func words(_ base: UnsafeRawPointer, _ a: Int, _ b: Int, _ c: Int, _ d: Int) -> SIMD8<Float> {
    unsafeBitCast(SIMD4<Double>(base.loadUnaligned(fromByteOffset: a, as: Double.self),
                                base.loadUnaligned(fromByteOffset: b, as: Double.self),
                                base.loadUnaligned(fromByteOffset: c, as: Double.self),
                                base.loadUnaligned(fromByteOffset: d, as: Double.self)),
                  to: SIMD8<Float>.self)
}

// The stdlib's `pointwiseMin`/`pointwiseMax` on float vectors compile to an out-of-line
// scalar loop (NaN rules); a compare and select is one `minps`/`blendvps`.
@_noLocks @inline(__always)
func lanewiseMin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .< a) }
@_noLocks @inline(__always)
func lanewiseMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .> a) }
@_noLocks @inline(__always)
func lanewiseMin(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> { a.replacing(with: b, where: b .< a) }
@_noLocks @inline(__always)
func lanewiseMax(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> { a.replacing(with: b, where: b .> a) }

/// a·b + c. Fused (one rounding, `vfmadd`) when the build targets FMA (`-D BEND_FMA`, set
/// by the Makefile with `-target-cpu haswell`); on baseline x86-64 a fused multiply-add
/// would be a libm call per lane, so it stays a multiply and an add there.
@_noLocks @inline(__always)
func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    #if BEND_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}
