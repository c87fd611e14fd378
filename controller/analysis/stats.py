"""The measured house edge of a simulation and its 95% confidence interval.

The simulator plays several independent tables side by side. Each table ``k``
yields the net result ``x_k`` of the bets it settled and their stakes ``y_k``
(the action). The edge per unit bet made is estimated by the ratio
``-(sum x) / (sum y)``; since the tables are independent replicates, the
ratio estimator's variance follows from the spread of ``x_k - R y_k`` across
tables (the delta method), with no assumption about how the rolls *within* a
table depend on one another (a place bet that stays up makes them dependent).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal


_T_95_SMALL = {1: 12.7062047, 2: 4.3026527, 3: 3.1824463, 4: 2.7764451}


def t_95(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom.

    The spread across tables is itself estimated from the tables, so with the default
    32 tables the interval needs t (2.04), not the normal's 1.96. Below 5 degrees of
    freedom, the exact values; from 5 on, Cornish-Fisher's series in 1/df to its third
    term, within 0.004 of the exact value and closer as they grow (no statistics library
    at the table for one number).
    """
    if df in _T_95_SMALL:
        return _T_95_SMALL[df]
    z = Z_95
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


@dataclass(frozen=True)
class EdgeEstimate:
    """A measured edge (positive = the house wins) with its 95% interval, per unit bet made."""

    edge: float
    low: float
    high: float
    action: int  # total stakes of the settled bets, in cents
    net: int  # the player's total net result, in cents

    def contains(self, value: Fraction | float) -> bool:
        return self.low <= float(value) <= self.high


def ratio_edge(net: np.ndarray, action: np.ndarray) -> EdgeEstimate:
    """Estimate the edge from per-table net results and actions (1-D arrays, one entry per table)."""
    net = np.asarray(net, dtype=np.float64)
    action = np.asarray(action, dtype=np.float64)
    total_net, total_action = float(net.sum()), float(action.sum())
    if total_action <= 0:
        return EdgeEstimate(math.nan, math.nan, math.nan, 0, int(total_net))
    ratio = total_net / total_action
    k = len(net)
    if k > 1:
        residual = net - ratio * action
        half = t_95(k - 1) * math.sqrt(k / (k - 1) * float(residual @ residual)) / total_action
    else:
        half = math.inf  # one table says nothing about the spread
    edge = -ratio
    return EdgeEstimate(edge, edge - half, edge + half, int(total_action), int(total_net))
