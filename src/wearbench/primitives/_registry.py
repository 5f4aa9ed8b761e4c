"""The ``@primitive`` decorator: registers a pure kernel under the ``primitive`` kind.

Every primitive is tagged with:

* ``inputs``: names of the positional data inputs, in order (``("values",)``, ``("x", "y")``, ...);
* ``output``: what it returns (a type name such as ``"float"`` or ``"Slope"``);
* ``units``: units of the result (``"same as input"``, ``"per day"``, ``"days"``, ``"r"``, ...);
* ``cost``: ``"cheap"`` | ``"moderate"`` | ``"expensive"`` for a 500-day series.

Keyword parameters are JSON values (ints, floats, strings, bools) so that a call can be
stored as a :class:`wearbench._registry.Spec` and re-run.
"""

from __future__ import annotations

from wearbench._registry import registered

primitive = registered("primitive")
