"""The built-in LLM agent."""

from reclaim.agents.llm.agent import LLMAgent, LLMOptions

__all__ = ["LLMAgent", "LLMOptions"]
