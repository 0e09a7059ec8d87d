"""Tiny kernel smoothing."""

from .kernel import nw_predict, silverman
from .tables import Z_TABLE, phi

__version__ = "0.2.0"
