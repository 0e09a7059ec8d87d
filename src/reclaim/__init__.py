"""reclaim: measures whether AI agents can reproduce published research results."""

__version__ = "0.1.0"
