"""The tests' scripted provider: reclaim's own scripted model (reclaim.agents.scripted)."""

from reclaim.agents.scripted import Reply, ScriptedModel
from reclaim.agents.scripted.server import Script

ScriptedOpenAI = ScriptedModel

__all__ = ["Reply", "Script", "ScriptedOpenAI"]
