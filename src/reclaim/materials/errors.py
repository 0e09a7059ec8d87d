"""The one error the materials package raises: a material could not be fetched or placed."""


class MaterialsError(Exception):
    """A material could not be fetched, verified or placed; the message names the field and the fix."""
