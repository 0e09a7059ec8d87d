"""The one error the materials package raises: a material could not be fetched or placed."""

from reclaim.errors import MaterialsError

__all__ = ["MaterialsError"]
