"""The model gateway between agents and providers: per-trial tokens, metering, budgets, records."""

from reclaim.gateway.accounts import Account, BudgetSpent
from reclaim.gateway.egress import EgressProxy, EgressRecord
from reclaim.gateway.pkgcache import PackageCache
from reclaim.gateway.policy import EgressPolicy, package_hosts, policy_for
from reclaim.gateway.server import Gateway, Upstreams
from reclaim.gateway.tls import client_env

__all__ = ["Account", "BudgetSpent", "EgressPolicy", "EgressProxy", "EgressRecord", "Gateway", "PackageCache",
           "Upstreams", "client_env", "package_hosts", "policy_for"]
