"""The `matrix` of gesture, doubleTap and transform messages as a value you can apply and invert."""

import math
from typing import NamedTuple, Tuple


class Affine(NamedTuple):
    """[a, b, c, d, tx, ty] in CGAffineTransform order: x' = a*x + c*y + tx, y' = b*x + d*y + ty.

    It maps content coordinates to the device's published space (docs/PROTOCOL.md, "gesture").
    """

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    tx: float = 0.0
    ty: float = 0.0

    @classmethod
    def identity(cls):
        return cls()

    @classmethod
    def from_list(cls, values):
        values = [float(v) for v in values]
        if len(values) != 6 or not all(math.isfinite(v) for v in values):
            raise ValueError("a matrix is 6 finite numbers [a, b, c, d, tx, ty], got %r" % (values,))
        return cls(*values)

    def apply(self, x, y) -> Tuple[float, float]:
        """The point (x, y) of the content, where it is drawn."""
        return (self.a * x + self.c * y + self.tx, self.b * x + self.d * y + self.ty)

    def then(self, other):
        """This transform followed by `other` (other ∘ self)."""
        o = other
        return Affine(
            o.a * self.a + o.c * self.b, o.b * self.a + o.d * self.b,
            o.a * self.c + o.c * self.d, o.b * self.c + o.d * self.d,
            o.a * self.tx + o.c * self.ty + o.tx, o.b * self.tx + o.d * self.ty + o.ty)

    def inverse(self):
        """The screen-to-content transform (for hit testing: which content point is under a finger)."""
        det = self.a * self.d - self.b * self.c
        if det == 0:
            raise ValueError("the matrix is not invertible")
        a, b, c, d = self.d / det, -self.b / det, -self.c / det, self.a / det
        return Affine(a, b, c, d, -(a * self.tx + c * self.ty), -(b * self.tx + d * self.ty))

    @property
    def scale(self) -> float:
        """The uniform zoom factor (the matrices the daemon publishes are similarities)."""
        return math.hypot(self.a, self.b)

    @property
    def rotation(self) -> float:
        """The rotation in radians, in (-pi, pi]."""
        return math.atan2(self.b, self.a)

    def to_list(self):
        return list(self)
