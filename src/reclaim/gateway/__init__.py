"""The model gateway between agents and providers: per-trial tokens, metering, budgets, records."""

from reclaim.gateway.accounts import Account, BudgetSpent
from reclaim.gateway.server import Gateway, Upstreams

__all__ = ["Account", "BudgetSpent", "Gateway", "Upstreams"]
